"""Who the client is: the identity the per-address rate limits, the bot quotas and the analysis shares count.
The forwarding headers are read right to left, only from trusted proxies; an IPv6 client counts by its /64.

Design: docs/api.md#client-address
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Sequence

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV6_GROUP_PREFIX = 64  # IPv6 clients are counted per /64


class BadTrustedProxy(ValueError):
    """A trusted-proxy entry that is neither an address nor a CIDR block; the message is one line."""


def parse_networks(entries: Iterable[str], name: str = "TA_TRUSTED_PROXIES") -> tuple[Network, ...]:
    """The networks of `entries` (addresses or CIDR blocks), parsed once when the app starts.

    A block with host bits set is refused, not rounded: ``10.0.0.1/8`` is more likely a typo than a wish to
    trust 16 million addresses.

    >>> parse_networks(["10.0.0.2", "fd00::/64", "::ffff:192.0.2.1"])
    (IPv4Network('10.0.0.2/32'), IPv6Network('fd00::/64'), IPv4Network('192.0.2.1/32'))
    >>> parse_networks(["10.0.0.1/8"], "PROXIES")
    Traceback (most recent call last):
    ...
    core.clientaddr.BadTrustedProxy: PROXIES: '10.0.0.1/8' has host bits set (did you mean 10.0.0.0/8?)
    >>> parse_networks(["proxy.internal"], "PROXIES")
    Traceback (most recent call last):
    ...
    core.clientaddr.BadTrustedProxy: PROXIES: 'proxy.internal' is neither an IP address nor a CIDR block
    """
    networks: list[Network] = []
    for entry in entries:
        text = entry.strip()
        try:
            network = ipaddress.ip_network(text)
        except ValueError:
            try:
                loose = ipaddress.ip_network(text, strict=False)
            except ValueError:
                raise BadTrustedProxy(f"{name}: {text!r} is neither an IP address nor a CIDR block") from None
            raise BadTrustedProxy(f"{name}: {text!r} has host bits set (did you mean {loose}?)") from None
        if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96 \
                and network.network_address.ipv4_mapped is not None:
            mapped = network.network_address.ipv4_mapped
            network = ipaddress.IPv4Network((mapped, network.prefixlen - 96))
        networks.append(network)
    return tuple(networks)


def client_identity(peer: str, forwarded_for: str | None, forwarded: str | None,
                    trusted: Sequence[Network]) -> str:
    """The client's identity: its IPv4 address, or its IPv6 /64 (``2001:db8:1:2::/64``).

    `peer` is the connection's peer (``REMOTE_ADDR``); `forwarded_for` and `forwarded` the raw
    ``X-Forwarded-For`` and ``Forwarded`` headers (several header lines joined by commas, as WSGI servers
    join them). The headers are read only when `peer` is in `trusted`; ``X-Forwarded-For`` when the request
    has one, else ``Forwarded``. A peer that is no IP address (a unix socket) is returned as it is.

    >>> trusted = parse_networks(["10.0.0.0/8"])
    >>> client_identity("10.1.2.3", "192.0.2.66, 198.51.100.7, 10.9.9.9", None, trusted)
    '198.51.100.7'
    >>> client_identity("203.0.113.5", "198.51.100.7", None, trusted)  # not from a trusted proxy: ignored
    '203.0.113.5'
    >>> client_identity("10.1.2.3", None, 'for="[2001:db8:1:2:aa::5]:4711";proto=https', trusted)
    '2001:db8:1:2::/64'
    """
    peer_address = parse_address(peer)
    if peer_address is None:
        return peer
    return identity(client_address(peer_address, forwarded_for, forwarded, trusted))


def client_address(peer: Address, forwarded_for: str | None, forwarded: str | None,
                   trusted: Sequence[Network]) -> Address:
    """The client's address: `peer` unless a chain of trusted proxies from `peer` names another.

    >>> trusted = parse_networks(["127.0.0.1", "10.0.0.0/8"])
    >>> peer = ipaddress.ip_address("127.0.0.1")
    >>> str(client_address(peer, "evil, 198.51.100.7", None, trusted))  # the forged part is never read
    '198.51.100.7'
    >>> str(client_address(peer, "198.51.100.7, nonsense", None, trusted))  # malformed: the peer
    '127.0.0.1'
    >>> str(client_address(peer, "10.0.0.5, 10.0.0.6", None, trusted))  # trusted all the way: the farthest
    '10.0.0.5'
    """
    if not trusted or not is_trusted(peer, trusted):
        return peer
    if forwarded_for is not None and forwarded_for.strip():
        hops: Iterator[str | None] = (parse_node(entry) for entry in reversed(forwarded_for.split(",")))
    elif forwarded is not None and forwarded.strip():
        nodes = reversed(forwarded_for_values(forwarded))
        hops = (None if node is None else parse_node(node) for node in nodes)
    else:
        return peer
    farthest = peer
    for hop in hops:
        address = None if hop is None else parse_address(hop)
        if address is None:
            return peer
        if not is_trusted(address, trusted):
            return address
        farthest = address
    return farthest


def identity(address: Address) -> str:
    """What the limits count for `address`: an IPv4 address alone, an IPv6 address's /64.

    >>> identity(ipaddress.ip_address("192.0.2.7"))
    '192.0.2.7'
    >>> identity(ipaddress.ip_address("2001:db8:1:2:3:4:5:6"))
    '2001:db8:1:2::/64'
    """
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_GROUP_PREFIX), strict=False))
    return str(address)


def is_trusted(address: Address, trusted: Sequence[Network]) -> bool:
    return any(address in network for network in trusted)


def parse_address(text: str) -> Address | None:
    """An address, None if `text` is none; an IPv4-mapped IPv6 address is its IPv4 address.

    >>> parse_address("::ffff:192.0.2.7"), parse_address("fe80::1%eth0"), parse_address("unknown")
    (IPv4Address('192.0.2.7'), IPv6Address('fe80::1%eth0'), None)
    """
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def parse_node(node: str) -> str | None:
    """The address part of one proxy-chain node (an X-Forwarded-For entry or a Forwarded ``for=`` value):
    ``192.0.2.7``, ``192.0.2.7:4711``, ``2001:db8::1``, ``[2001:db8::1]`` or ``[2001:db8::1]:4711``;
    None when it has a port that is not one.

    >>> parse_node(" [2001:db8::1]:4711"), parse_node("192.0.2.7:80"), parse_node("2001:db8::1")
    ('2001:db8::1', '192.0.2.7', '2001:db8::1')
    >>> parse_node("192.0.2.7:http") is None, parse_node("[2001:db8::1") is None
    (True, True)
    """
    node = node.strip()
    if node.startswith("["):
        address, bracket, port = node[1:].partition("]")
        if not bracket or (port and not (port.startswith(":") and port[1:].isdigit())):
            return None
        return address
    if node.count(":") == 1:
        address, _, port = node.partition(":")
        return address if port.isdigit() else None
    return node


def forwarded_for_values(header: str) -> list[str | None]:
    """The ``for=`` node of each element of an RFC 7239 ``Forwarded`` header, in order; None for an element
    that has none or cannot be parsed (quoted values may hold ``,`` and ``;``).

    >>> forwarded_for_values('for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711"')
    ['192.0.2.60', '[2001:db8:cafe::17]:4711']
    >>> forwarded_for_values('proto=https, for="192.0.2.1, for=unterminated')
    [None, None]
    """
    values: list[str | None] = []
    for element in split_quoted(header, ","):
        values.append(None if element is None else element_for(element))
    return values


def element_for(element: str) -> str | None:
    """The ``for=`` value of one Forwarded element (quotes removed), None if it has none or a malformed pair.

    >>> element_for('for="[2001:db8::1]";proto=https'), element_for("proto=https"), element_for("for")
    ('[2001:db8::1]', None, None)
    """
    found = None
    for pair in split_quoted(element, ";"):
        name, equals, value = (pair or "").partition("=")
        if not equals:
            return None
        value = value.strip()
        if value.startswith('"'):
            if len(value) < 2 or not value.endswith('"'):
                return None
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        if name.strip().lower() == "for":
            found = value
    return found


def split_quoted(text: str, separator: str) -> list[str | None]:
    """`text` split at `separator` outside double quotes; an unterminated quote makes the last part None.

    >>> split_quoted('a="x,y",b', ","), split_quoted('a="x,b', ",")
    (['a="x,y"', 'b'], [None])
    """
    parts: list[str | None] = []
    current: list[str] = []
    quoted = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append(None if quoted else "".join(current))
    return parts
