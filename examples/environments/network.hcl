# Network layout, computed with HCL functions (merged over the YAML values).
locals {
  base = "10.20.0.0/16"
}

values {
  network = {
    cidr    = local.base
    subnets = cidrsubnets(local.base, 4, 4, 8)
    gateway = cidrhost(local.base, 1)
  }
  hosts = [for i, s in hv.network.subnets : "zone-${i}.internal"]
}
