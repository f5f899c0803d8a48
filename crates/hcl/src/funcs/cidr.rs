//! cty's network functions: `cidrhost`, `cidrnetmask`, `cidrsubnet`, `cidrsubnets`.

use crate::funcs::base::{int_of, st, FResult, Fail};
use crate::value::{Type, Value};

/// An IP network: address bits, length, prefix length.
struct Net {
    addr: u128,
    bits: u32,
    prefix: u32,
}

fn parse_cidr(s: &str) -> Result<Net, Fail> {
    let bad = || {
        Fail::Arg(
            0,
            format!("invalid CIDR expression: invalid CIDR address: {s}"),
        )
    };
    let (ip, len) = s.split_once('/').ok_or_else(bad)?;
    let prefix: u32 = len.parse().map_err(|_| bad())?;
    if let Ok(v4) = ip.parse::<std::net::Ipv4Addr>() {
        if prefix > 32 {
            return Err(bad());
        }
        let a = u32::from(v4) as u128;
        let mask = if prefix == 0 {
            0
        } else {
            (!0u32 << (32 - prefix)) as u128
        };
        return Ok(Net {
            addr: a & mask,
            bits: 32,
            prefix,
        });
    }
    if let Ok(v6) = ip.parse::<std::net::Ipv6Addr>() {
        if prefix > 128 {
            return Err(bad());
        }
        let a = u128::from(v6);
        let mask = if prefix == 0 {
            0
        } else {
            !0u128 << (128 - prefix)
        };
        return Ok(Net {
            addr: a & mask,
            bits: 128,
            prefix,
        });
    }
    Err(bad())
}

fn show_ip(a: u128, bits: u32) -> String {
    if bits == 32 {
        std::net::Ipv4Addr::from(a as u32).to_string()
    } else {
        std::net::Ipv6Addr::from(a).to_string()
    }
}

pub(crate) fn cidrhost(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    let host = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let host_bits = net.bits - net.prefix;
    let size: u128 = if host_bits >= 128 {
        u128::MAX
    } else {
        1u128 << host_bits
    };
    let h = if host < 0 {
        size as i128 + host as i128
    } else {
        host as i128
    };
    if h < 0 || (host_bits < 128 && h as u128 >= size) {
        return Err(Fail::Call(format!(
            "prefix of {} does not accommodate a host numbered {host}",
            net.prefix
        )));
    }
    Ok(Value::string(show_ip(net.addr | h as u128, net.bits)))
}

pub(crate) fn cidrnetmask(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    if net.bits != 32 {
        return Err(Fail::Call("only IPv4 networks can have a netmask".into()));
    }
    let mask = if net.prefix == 0 {
        0
    } else {
        !0u32 << (32 - net.prefix)
    };
    Ok(Value::string(std::net::Ipv4Addr::from(mask).to_string()))
}

fn subnet(net: &Net, newbits: i64, netnum: i64) -> Result<(u128, u32), Fail> {
    let new_prefix = net.prefix as i64 + newbits;
    if newbits < 0 || new_prefix > net.bits as i64 {
        return Err(format!(
            "insufficient address space to extend prefix of {} by {newbits}",
            net.prefix
        )
        .into());
    }
    let max = 1i128 << newbits;
    if netnum < 0 || netnum as i128 >= max {
        return Err(format!(
            "prefix extension of {newbits} does not accommodate a subnet numbered {netnum}"
        )
        .into());
    }
    let shift = net.bits as i64 - new_prefix;
    let addr = net.addr | ((netnum as u128) << shift);
    Ok((addr, new_prefix as u32))
}

pub(crate) fn cidrsubnet(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    let newbits = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let netnum = int_of(&a[2]).ok_or_else(|| Fail::Arg(2, "a whole number is required".into()))?;
    let (addr, pfx) = subnet(&net, newbits, netnum)?;
    Ok(Value::string(format!("{}/{pfx}", show_ip(addr, net.bits))))
}

pub(crate) fn cidrsubnets(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    let mut out = Vec::new();
    let mut next: u128 = net.addr;
    for (i, nb) in a[1..].iter().enumerate() {
        let newbits =
            int_of(nb).ok_or_else(|| Fail::Arg(i + 1, "a whole number is required".into()))?;
        let new_prefix = net.prefix as i64 + newbits;
        if newbits < 1 || new_prefix > net.bits as i64 {
            return Err(Fail::Arg(i + 1, format!("would extend prefix to {new_prefix} bits, which is too long for an IPv{} address", if net.bits == 32 { 4 } else { 6 })));
        }
        let size: u128 = 1u128 << (net.bits as i64 - new_prefix);
        // Align to this subnet's size.
        let aligned = next.div_ceil(size) * size;
        let end = aligned + size;
        let net_end = net.addr + (1u128 << (net.bits - net.prefix));
        if end > net_end {
            return Err(Fail::Arg(i + 1, format!("not enough remaining address space for a subnet with a prefix of {new_prefix} bits after {}", show_ip(next.saturating_sub(1), net.bits))));
        }
        out.push(Value::string(format!(
            "{}/{new_prefix}",
            show_ip(aligned, net.bits)
        )));
        next = end;
    }
    Ok(Value::List(Type::String, out))
}
