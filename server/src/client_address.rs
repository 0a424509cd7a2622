//! The client's address, which every per-address limit keys on. Behind a proxy the TCP
//! peer is the proxy, and the client appears in `X-Forwarded-For`: but every entry to the
//! left of what our own proxies appended was written by the client, so only the
//! right-most entry that is *not* one of our proxies can be believed (MDN, "X-Forwarded-For:
//! selecting an IP address"). The proxies are configured as `http.trusted_proxies`.

use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;

/// Addresses and networks of the proxies in front of this server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list of addresses (`10.0.0.5`, `::1`) and networks (`10.0.0.0/8`).
    fn from_str(text: &str) -> Result<Self, String> {
        Self::parse_all(text.split(','))
    }
}

impl TrustedProxies {
    pub fn parse_all<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut networks = Vec::new();
        for entry in entries.into_iter().map(str::trim).filter(|e| !e.is_empty()) {
            let network = match entry.parse::<IpNet>() {
                Ok(network) => network,
                Err(_) => IpNet::from(
                    entry.parse::<IpAddr>().map_err(|_| format!("{entry:?} is neither an address nor a network"))?,
                ),
            };
            networks.push(network);
        }
        Ok(Self(networks))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.0.iter().any(|network| network.contains(&address))
    }

    /// The client behind `peer`: `peer` itself unless it is a trusted proxy; else, walking
    /// `X-Forwarded-For` from the right, the first entry that is not a trusted proxy. An
    /// entry that is not an address ends the walk at the last hop known (that proxy), so a
    /// client writing garbage shares its proxy's budget rather than getting a new one.
    pub fn client(&self, peer: IpAddr, forwarded_for: &[&str]) -> IpAddr {
        let mut client = canonical(peer);
        if !self.contains(client) {
            return client;
        }
        let hops = forwarded_for.iter().flat_map(|header| header.split(',')).map(str::trim).rev();
        for hop in hops {
            let Some(address) = parse_hop(hop) else {
                return client;
            };
            client = address;
            if !self.contains(address) {
                return address;
            }
        }
        client
    }
}

/// `203.0.113.7`, `2001:db8::1`, `[2001:db8::1]:443` or `203.0.113.7:5000`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(address) = hop.parse::<IpAddr>() {
        return Some(canonical(address));
    }
    hop.parse::<std::net::SocketAddr>().ok().map(|socket| canonical(socket.ip()))
}

/// IPv4 peers of a dual-stack socket arrive as `::ffff:a.b.c.d`; they are the IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    fn proxies(text: &str) -> TrustedProxies {
        text.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        assert_eq!(proxies("").client(ip("198.51.100.1"), &["1.2.3.4"]), ip("198.51.100.1"));
        assert_eq!(proxies("10.0.0.0/8").client(ip("198.51.100.1"), &["1.2.3.4"]), ip("198.51.100.1"));
    }

    #[test]
    fn the_right_most_untrusted_hop_is_the_client() {
        let trusted = proxies("10.0.0.0/8, 192.0.2.1");
        assert_eq!(trusted.client(ip("192.0.2.1"), &["6.6.6.6, 203.0.113.9, 10.1.1.1"]), ip("203.0.113.9"));
        assert_eq!(trusted.client(ip("192.0.2.1"), &["6.6.6.6", "203.0.113.9"]), ip("203.0.113.9"));
        assert_eq!(trusted.client(ip("::ffff:192.0.2.1"), &["203.0.113.9:4711"]), ip("203.0.113.9"));
    }

    #[test]
    fn garbage_or_no_header_leaves_the_last_known_hop() {
        let trusted = proxies("192.0.2.1,10.0.0.0/8");
        assert_eq!(trusted.client(ip("192.0.2.1"), &[]), ip("192.0.2.1"));
        assert_eq!(trusted.client(ip("192.0.2.1"), &["6.6.6.6, unknown, 10.0.0.3"]), ip("10.0.0.3"));
        assert_eq!(trusted.client(ip("192.0.2.1"), &["10.0.0.2, 10.0.0.3"]), ip("10.0.0.2"));
    }

    #[test]
    fn entries_that_are_not_addresses_are_refused() {
        assert!("10.0.0.0/33".parse::<TrustedProxies>().is_err());
        assert!("proxy.local".parse::<TrustedProxies>().is_err());
        assert!("::1, 172.16.0.0/12".parse::<TrustedProxies>().is_ok_and(|p| !p.is_empty()));
    }
}
