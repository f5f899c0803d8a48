//! Which network addresses this process may connect to. By default every address; an
//! untrusted run (`--untrusted`, the Argo CD plugin) installs a [`Guard`] once, and from
//! then on every HTTP(S) connection this crate makes — chart repositories, registries,
//! remote values, secret stores, each redirect — is checked where the name is resolved,
//! against the very addresses the connection will use (so a name that resolves to a
//! public address when checked and to a private one when connecting cannot slip by).
//!
//! The guard allows a host named by the administrator's allow-list at any address, and
//! any other host only at public addresses ([`is_public`]): never loopback, private,
//! link-local (cloud metadata services), shared, documentation, multicast or reserved
//! ranges, nor a public-looking IPv6 address that embeds one of those.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::OnceLock;

/// Decides, for a host name (lower case, without port), the port and one of the name's
/// addresses, whether a connection may be made.
pub type Guard = Box<dyn Fn(&str, u16, IpAddr) -> bool + Send + Sync>;

static GUARD: OnceLock<Guard> = OnceLock::new();

/// Installs the guard for the rest of this process; a second call is ignored (the
/// first guard stays: a guard is never loosened).
pub fn install(guard: Guard) {
    let _ = GUARD.set(guard);
}

/// Whether a guard is installed.
pub fn installed() -> bool {
    GUARD.get().is_some()
}

/// Whether a connection to `host:port` at `ip` is allowed (always, without a guard).
pub fn allows(host: &str, port: u16, ip: IpAddr) -> bool {
    match GUARD.get() {
        Some(g) => g(
            &host.trim_matches(['[', ']']).to_ascii_lowercase(),
            port,
            ip,
        ),
        None => true,
    }
}

/// The resolver every connection uses: the name's addresses, less those the guard
/// refuses; an error naming the host when none is left.
pub(crate) fn resolve(netloc: &str) -> std::io::Result<Vec<SocketAddr>> {
    let found: Vec<SocketAddr> = netloc.to_socket_addrs()?.collect();
    let host = netloc.rsplit_once(':').map_or(netloc, |(h, _)| h);
    let allowed: Vec<SocketAddr> = found
        .iter()
        .copied()
        .filter(|a| allows(host, a.port(), a.ip()))
        .collect();
    if allowed.is_empty() && !found.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{host} resolves only to addresses this run may not reach (loopback, private, link-local or reserved; an administrator allow-lists hosts)"
            ),
        ));
    }
    Ok(allowed)
}

/// Whether `ip` is a public unicast address: not unspecified, loopback, private
/// (RFC 1918, IPv6 unique local), link-local (169.254/16 with the cloud metadata
/// services, fe80::/10), shared (100.64/10), benchmarking, documentation, multicast,
/// broadcast or reserved, and for IPv6 not one embedding such an IPv4 address
/// (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 192 && b == 0 && c == 2)
        || (a == 192 && b == 88 && c == 99)
        || (a == 192 && b == 168)
        || (a == 198 && (18..20).contains(&b))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    // IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96 and 64:ff9b:1::/48) and 6to4
    // (2002::/16) carry an IPv4 address the network may route to.
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if s[..6] == [0; 6] {
        return !ip.is_unspecified() && !ip.is_loopback() && is_public_v4(embedded(s[6], s[7]));
    }
    if (s[0] == 0x64 && s[1] == 0xff9b) && (s[2..6] == [0; 4] || s[2] == 1) {
        return is_public_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return is_public_v4(embedded(s[1], s[2]));
    }
    !(ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        || (s[0] == 0x2001 && s[1] < 0x200)
        || s[0] == 0x100 && s[1..4] == [0; 3])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "0.0.0.0",
            "127.0.0.1",
            "127.255.0.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "100.64.0.1",
            "198.18.0.1",
            "192.0.2.1",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "::",
            "::1",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::a00:1",
            "2002:a9fe:a9fe::1",
            "2002:7f00:1::",
            "2001:db8::1",
            "ff02::1",
            "fec0::1",
        ] {
            let ip: IpAddr = private.parse().unwrap();
            assert!(!is_public(ip), "{private}");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2002:808:808::1",
            "64:ff9b::808:808",
        ] {
            let ip: IpAddr = public.parse().unwrap();
            assert!(is_public(ip), "{public}");
        }
    }
}
