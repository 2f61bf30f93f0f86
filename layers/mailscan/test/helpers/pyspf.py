"""pyspf (Debian's python3-spf 2.0.14) as the independent SPF implementation for the differential tests.

  pyspf.py PORT DOMAIN IP [IP ...]  ->  one JSON line: {"<ip>": {"result", "explanation"}, ...}

pyspf resolves through dnspython's default resolver, which is pointed here at the test DNS server
on 127.0.0.1:PORT. It runs check_host() for a sender at DOMAIN from each IP, in strict mode.
"""
import json
import sys

import dns.resolver
import spf

port, domain, ips = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
resolver = dns.resolver.Resolver(configure=False)
resolver.nameservers = ["127.0.0.1"]
resolver.port = port
resolver.lifetime = 5
dns.resolver.default_resolver = resolver

results = {}
for ip in ips:
    result, _code, explanation = spf.query(ip, "postmaster@" + domain, "mail." + domain, strict=True).check()
    results[ip] = {"result": result, "explanation": explanation}
print(json.dumps(results))
