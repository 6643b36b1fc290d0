"""Checks agentrt's schemas and verdicts against an independent validator, Debian's python3-jsonschema.

Every derived schema must be valid under the draft 2020-12 metaschema, and every corpus document must be
judged the same by agentrt and by jsonschema's Draft202012Validator, except where the corpus marks the
oracle's float arithmetic departing from exact decimals (multipleOf on non-integers): agentrt's rule is
exact, those cases are listed with the reason, and agentrt's verdict on them is checked against exact
arithmetic.
"""
import decimal
import json
import re
import subprocess
import sys

from jsonschema import Draft202012Validator


def exact_multiple(value_text, divisor):
    q = decimal.Decimal(value_text) / decimal.Decimal(repr(divisor))
    return q == q.to_integral_value()


def main(judge, corpus):
    lines = subprocess.run([judge, corpus], check=True, capture_output=True, text=True).stdout.splitlines()
    records = [json.loads(line) for line in lines]
    schemas = {r["schema_of"]: r["schema"] for r in records if "schema_of" in r}
    failures, divergences, compared = [], [], 0

    for name, schema in schemas.items():
        errors = list(Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema))
        if errors:
            failures.append(f"schema of {name} is not valid draft 2020-12: {errors[0].message}")

    for r in (r for r in records if "line" in r):
        document = json.loads(r["document"])
        oracle = Draft202012Validator(schemas[r["type"]]).is_valid(document)
        compared += 1
        where = f"corpus line {r['line']} ({r['type']}): {r['document'][:120]}"
        if r["divergence"] == "-":
            if oracle != r["accepted"]:
                failures.append(f"{where}\n  agentrt {'accepts' if r['accepted'] else 'refuses'}, "
                                f"jsonschema {'accepts' if oracle else 'refuses'}; agentrt says {r['violations']}")
            continue
        if r["divergence"] == "float-multipleOf":
            price = re.search(r'"price":\s*([-0-9.eE+]+)', r["document"]).group(1)
            exact = exact_multiple(price, 0.01)
        else:
            failures.append(f"{where}: unknown divergence {r['divergence']}")
            continue
        if r["accepted"] != exact:
            failures.append(f"{where}\n  agentrt's verdict is not the exact one ({exact})")
        divergences.append(f"  {r['divergence']}: line {r['line']} {r['document'][:80]}: agentrt "
                           f"{'accepts' if r['accepted'] else 'refuses'} (exact), jsonschema "
                           f"{'accepts' if oracle else 'refuses'}")

    print(f"{len(schemas)} schemas checked against the metaschema; {compared} documents compared")
    print("multipleOf on non-integers: the oracle divides doubles, agentrt's rule is exact decimal arithmetic:")
    print("\n".join(divergences) or "  none")
    if compared < 200:
        failures.append(f"the corpus has {compared} documents; it must have at least 200")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
