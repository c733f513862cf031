"""Which ingress sources are the whole internet, for no-public-ingress and the modules it draws on.

A source is world-open when it is 0.0.0.0/0 or ::/0 (on Azure also `*`, `Internet` or `Any`), and
sources are world-open together when their networks collapse into all of IPv4 or IPv6
(0.0.0.0/1 + 128.0.0.0/1). SSH is allowed from a world CIDR only where `sshCidrs` lists it. The
per-resource rule checks (no_public_ingress), the split-rule check (split_ingress) and the DNAT
check (dnat) judge sources by this one reading; it lives apart from no_public_ingress so that
they need not import that module (no import circle). plain_list reads a list input as its items
([] where it is no list). only_port_22 reads GCP and Azure port entries, a port or a range of ports
("22", or "22-22", the range whose two ends are 22, which is that one port).
"""
from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import Any, Mapping, Optional, Union

from trainstack_policies.model import UNKNOWN, Resource, UnknownValue


WORLD = {"0.0.0.0/0", "::/0"}
AZURE_WORLD = {"*", "internet", "any", "0.0.0.0/0", "::/0"}


@lru_cache(maxsize=4096)   # a stack repeats a handful of CIDRs on every rule of every group
def network(source: str) -> Union[ipaddress.IPv4Network, ipaddress.IPv6Network, None]:
    """ipaddress.ip_network(source, strict=False), or None where that raises ValueError (networks
    are immutable, so one parse serves every rule that names the same CIDR)."""
    try:
        return ipaddress.ip_network(source, strict=False)
    except ValueError:
        return None


@lru_cache(maxsize=4096)
def _world_cidr(source: str) -> Optional[str]:
    net = network(source)
    return str(net) if net is not None and net.prefixlen == 0 else None


def as_world(source: Any, r: Resource, path: str) -> Optional[str]:
    """The source as a world-open CIDR, or None."""
    if source is UNKNOWN:
        raise UnknownValue(r, path)
    if not isinstance(source, str) or not source:
        return None
    if r.cloud == "azure" and source.lower() in AZURE_WORLD:
        return "::/0" if source == "::/0" else "0.0.0.0/0"
    return _world_cidr(source)


def covered(sources: list[tuple[Any, str]], r: Resource) -> list[tuple[Any, str]]:
    """`sources`, plus a synthetic world entry when together they cover all of IPv4 or IPv6."""
    nets: dict[int, list] = {4: [], 6: []}
    for source, path in sources:
        if source is UNKNOWN:
            raise UnknownValue(r, path)
        net = network(source) if isinstance(source, str) else None
        if net is not None and net.prefixlen:
            nets[net.version].append(net)
    out = list(sources)
    worlds = {str(w) for w in (as_world(src, r, p) for src, p in sources) if w}
    for version, world in ((4, "0.0.0.0/0"), (6, "::/0")):
        if world in worlds or len(nets[version]) < 2:
            continue   # one network that is not the whole space cannot collapse into it
        collapsed = list(ipaddress.collapse_addresses(nets[version]))
        if len(collapsed) == 1 and collapsed[0].prefixlen == 0:
            split = " + ".join(sorted(str(n) for n in nets[version]))
            out.append((world, f"sources {split} (together all addresses)"))
    return out


def allowed_ssh(world: str, ssh_only: bool, config: Mapping[str, Any]) -> bool:
    if not ssh_only:
        return False
    listed = set()
    for cidr in config.get("sshCidrs", []) or []:
        try:
            listed.add(str(ipaddress.ip_network(cidr, strict=False)))
        except ValueError:
            continue
    return world in listed


# A GCP firewall (or firewall policy rule) port entry "must be either an integer or a range"
# (pulumi_gcp Firewall allows.ports, e.g. ["12345-12349"]); an Azure NSG port is an "Integer or
# range between 0 and 65535" (azure-native SecurityRule destinationPortRange(s)). A range whose
# two ends are the same port is that port alone.
_PORT_OR_RANGE = re.compile(r"(\d+)(?:-(\d+))?", re.ASCII)


def only_port_22(ports: list) -> bool:
    """Whether port entries (strings as the program wrote them) name TCP/UDP port 22 and no
    other: at least one entry, each "22" or a range "22-22"; "21-22", "22-23", "*" or none are
    more than port 22."""
    if not ports:
        return False
    for entry in ports:
        m = _PORT_OR_RANGE.fullmatch(entry.strip()) if isinstance(entry, str) else None
        if m is None or int(m.group(1)) != 22 or int(m.group(2) or 22) != 22:
            return False
    return True


def plain_list(value: Any) -> list:
    return list(value) if isinstance(value, list) else []
