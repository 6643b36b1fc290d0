"""Independent oracle: Debian's python3-jsonschema judges agentrt's generated values and near misses.

Reads JSON lines {"source": ..., "kind": ..., "schema": ..., "text": "...", "valid": true|false} (valid
is agentrt's verdict) and reports every line where Draft202012Validator disagrees, with both verdicts. Run with /usr/bin/python3 (Debian's interpreter has the module).
"""
import decimal
import json
import sys

from jsonschema import Draft202012Validator, ValidationError, validators

# Draft 2020-12 defines multipleOf on the numbers' values; python-jsonschema divides floats
# (1.18 / 0.01 = 117.99999999999999), which refuses exact decimal multiples. The oracle checks
# multipleOf exactly on each number's shortest spelling, as agentrt does; every other keyword is
# python-jsonschema's own.
decimal.getcontext().prec = 1000


def exact_multiple_of(validator, divisor, instance, schema):
    if not validator.is_type(instance, "number"):
        return
    if decimal.Decimal(repr(instance)) % decimal.Decimal(repr(divisor)) != 0:
        yield ValidationError(f"{instance!r} is not a multiple of {divisor}")


Validator = validators.extend(Draft202012Validator, {"multipleOf": exact_multiple_of})

disagreements = 0
total = 0
compiled = {}
with open(sys.argv[1], encoding="utf-8") as lines:
    for line in lines:
        case = json.loads(line)
        key = json.dumps(case["schema"], sort_keys=True)
        if key not in compiled:
            compiled[key] = Validator(case["schema"])
        total += 1
        verdict = compiled[key].is_valid(json.loads(case["text"]))
        if verdict != case["valid"]:
            disagreements += 1
            said = lambda valid: "valid" if valid else "invalid"
            where = f" ({case['rule']} at {case['pointer']!r})" if "rule" in case else ""
            print(f"disagreement on {case['source']}, {case['kind']}{where}: agentrt says {said(case['valid'])},"
                  f" python3-jsonschema says {said(verdict)}: {case['text']}")
print(f"{total} cases, {disagreements} disagreements")
sys.exit(1 if disagreements or total == 0 else 0)
