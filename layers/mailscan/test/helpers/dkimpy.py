"""dkimpy (Debian's python3-dkim) as an independent DKIM/ARC implementation for the header tests.

Reads JSON requests on stdin, one per line, and answers each with one JSON line on stdout (one
process serves a whole test file: importing dkim costs more than signing). Messages travel
base64-encoded.
  {"op": "sign", "message", "selector", "domain", "key", "algorithm", "canonicalize", "length", "include_headers"}
  {"op": "arc_sign", "message", "selector", "domain", "key", "srv_id"}
  {"op": "verify", "message", "keys": {"<selector>._domainkey.<domain>": "<TXT value>"}}
The `dkimsign`/`arcsign` commands cannot be pointed at a test DNS server, so verification uses the
library with a dnsfunc serving the same TXT values the test DNS server publishes.
"""
import base64
import json
import sys

import dkim


def answer(request):
    message = base64.b64decode(request["message"])
    op = request["op"]
    if op == "sign":
        header = dkim.sign(
            message,
            request["selector"].encode(),
            request["domain"].encode(),
            request["key"].encode(),
            canonicalize=tuple(c.encode() for c in request.get("canonicalize", ["relaxed", "relaxed"])),
            signature_algorithm=request.get("algorithm", "rsa-sha256").encode(),
            include_headers=[h.encode() for h in request["include_headers"]] if request.get("include_headers") else None,
            length=bool(request.get("length", False)),
        )
        out = {"message": base64.b64encode(header + message).decode()}
    elif op == "arc_sign":
        headers = dkim.arc_sign(
            message,
            request["selector"].encode(),
            request["domain"].encode(),
            request["key"].encode(),
            request["srv_id"].encode(),
        )
        out = {"message": base64.b64encode(b"".join(headers) + message).decode()}
    elif op == "verify":
        keys = {name.lower().rstrip("."): value for name, value in request["keys"].items()}

        def dnsfunc(name, timeout=5):
            value = keys.get(name.decode().lower().rstrip("."))
            return value.encode() if value is not None else None

        verifier = dkim.DKIM(message)
        count = sum(1 for name, _ in verifier.headers if name.lower() == b"dkim-signature")
        verdicts = []
        for index in range(count):
            try:
                verdicts.append(bool(dkim.DKIM(message, minkey=1024).verify(idx=index, dnsfunc=dnsfunc)))
            except dkim.DKIMException:
                verdicts.append(False)
        cv, _results, comment = dkim.arc_verify(message, dnsfunc=dnsfunc)
        # dkimpy answers None (not b"fail") for a chain whose newest seal itself says cv=fail; RFC 8617
        # section 5.2 makes that chain's state fail, which is how the tests compare it.
        out = {"dkim": verdicts, "arc": cv.decode() if cv is not None else "fail", "arc_comment": comment}
    else:
        raise ValueError("unknown op " + op)
    return out


for line in sys.stdin:
    try:
        reply = answer(json.loads(line))
    except Exception as error:  # reported to the test, which fails with it
        reply = {"error": repr(error)}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
