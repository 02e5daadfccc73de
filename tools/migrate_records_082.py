"""One-off migration of results/ (issue 82, point 1): every record gets the
`kind` its readers dispatch on, old layouts are rewritten to today's.

Run from the checkout: python migrate_records.py [results]. Idempotent. The
edits are textual (the records keep their formatting); each rewritten file
is checked to parse to the record the migration means.
"""

import json
import pathlib
import re
import shlex
import subprocess
import sys
import types

# The commit whose `commands.user_command` made the pages' commands from the
# records' raw command strings: the structured commands are its output.
OLD = "04af25c"


def _old_user_command():
    source = subprocess.run(
        ["git", "show", f"{OLD}:keras_rda/lab/reporting/commands.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("old_commands")
    exec(compile(source, "old_commands.py", "exec"), module.__dict__)
    return module.user_command


USER_COMMAND = _old_user_command()
PROSE = re.compile(r"^[^:]*\([^)]*\):\s+")

SPEED_TABLES = (
    "rnn_cost",
    "rnn_profile",
    "parallel_rda_speed",
    "zoo_step_speed",
    "compare_speed",
    "memory_speed",
)
# Table records whose numbers are times or counts (the benchmark harness's).
TIMING_TABLES = (
    "attention_speed",
    "enwik8_speed",
    "enwik8_loop_speed",
    "kernel_compile",
    "speed_summary",
    "streaming_speed",
    "tensorarray_gradient",
)


def kind_of(name, data):
    """The old readers' guess of a record's type, made once."""
    if name == "fixes":
        return "fixes"
    if isinstance(data.get("claims"), list):
        return "claims"
    runs = data.get("runs")
    if isinstance(runs, dict):
        return "enwik8"
    if isinstance(runs, list):
        return "comparison"
    if data.get("benchmark") in SPEED_TABLES:
        return data["benchmark"]
    rows = data.get("rows")
    if rows and isinstance(rows[0], dict) and "ratio_to_lstm" in rows[0]:
        return "memory_speed" if "sizes" in data else "rnn_speed"
    if "columns" in data and "rows" in data:
        return "timing" if data.get("benchmark") in TIMING_TABLES else "table"
    raise ValueError(f"{name}: no kind for keys {sorted(data)}")


def with_kind(text, data, kind):
    if "kind" in data:
        return text
    indent = re.match(r"\{\n( +)\"", text).group(1)
    return text.replace("{\n", f'{{\n{indent}"kind": "{kind}",\n', 1)


def memory_rows(text, data):
    """memory_speed.py's rows keyed their length `T`; rnn_speed.py's `length`."""
    for row in data["rows"]:
        if "T" in row:
            row["length"] = row.pop("T")
    return re.sub(r'"T": ', '"length": ', text)


def speed_reference(text, data):
    """rnn_speed.py records before `--reference` was recorded: the LSTM."""
    settings = data["settings"]
    if "reference" in settings:
        return text
    settings["reference"] = "LSTM"
    match = re.search(r'\n( +)"settings": \{\n( +)', text)
    at = match.end()
    return text[:at] + '"reference": "LSTM",\n' + match.group(2) + text[at:]


def memory_instances(text, data):
    """memory_speed.py records before `--instances`: one copy of each model."""
    if "instances" in data:
        return text
    data["instances"] = 1
    return text.replace(
        '"kind": "memory_speed",\n', '"kind": "memory_speed",\n  "instances": 1,\n', 1
    )


def claims_where(text, data):
    """A claim's reading of a memory_speed.py row names its length `length`."""
    for claim in data["claims"]:
        for reading in claim.get("ours", []):
            where = reading.get("where") or {}
            if "T" in where:
                reading["where"] = {
                    ("length" if k == "T" else k): v for k, v in where.items()
                }
    return re.sub(r'"where": \{"T": ', '"where": {"length": ', text)


def structured(shown):
    """The structured commands of a page's command line (`user_command`'s):
    commands joined by ` && `, each `ENV=VALUE ... argv`, a trailing
    `  # note`; the record's place (`--results-dir`, `--name`) that the
    renderer adds to a record's one run command is left to it."""
    shown, _, note = shown.partition("  # ")
    commands = []
    for part in shown.split(" && "):
        words = shlex.split(part)
        env = {}
        while re.match(r"^[A-Z_]+=", words[0]):
            key, _, value = words.pop(0).partition("=")
            env[key] = value
        commands.append({"argv": words, "env": env})
    runs = [
        c
        for c in commands
        if c["argv"][:2] in (["keras-rda", "compare"], ["keras-rda", "train"])
    ]
    if len(runs) == 1:
        argv = runs[0]["argv"]
        for option in ("--name", "--results-dir"):
            if option in argv:
                at = argv.index(option)
                del argv[at : at + 2]
    if note:
        commands[-1]["note"] = note
    return commands


def with_commands(text, data, name):
    """The raw `command` string (and a table record's raw `commands`) as the
    structured `commands`; prose before the commands goes to `command_note`."""
    if "command" not in data:
        return text
    raw = data.pop("command")
    data.pop("commands", None)
    backend = (data.get("versions") or {}).get("backend")
    data["commands"] = structured(USER_COMMAND(raw, name, backend))
    prose = PROSE.match(raw)
    pad = re.match(r"\{\n( +)\"", text).group(1)
    lines = [f'{pad}"commands": [']
    lines += [
        pad * 2 + json.dumps(c) + ("," if i < len(data["commands"]) - 1 else "")
        for i, c in enumerate(data["commands"])
    ]
    lines.append(f"{pad}],")
    if prose:
        data["command_note"] = prose.group(0).strip().rstrip(":")
        lines.append(f'{pad}"command_note": {json.dumps(data["command_note"])},')
    text = re.sub(
        r"\n" + pad + r'"commands": \[\n(?:' + pad * 2 + r".*\n)*?" + pad + r"\],?\n",
        "\n",
        text,
    )
    string = r'"(?:[^"\\]|\\.)*"'
    match = re.search(r"\n" + pad + r'"command": ' + string + r"(,?)\n", text)
    block = "\n".join(lines)
    if not match.group(1):
        block = block[:-1]
    return text[: match.start()] + "\n" + block + "\n" + text[match.end() :]


def migrate(path, results):
    name = str(path.relative_to(results).with_suffix(""))
    text = old = path.read_text()
    data = json.loads(text)
    kind = data.get("kind") or kind_of(name, data)
    text = with_kind(text, data, kind)
    if kind == "memory_speed":
        text = memory_rows(text, data)
        text = memory_instances(text, data)
    if kind == "rnn_speed":
        text = speed_reference(text, data)
    if kind == "claims":
        text = claims_where(text, data)
    text = with_commands(text, data, name)
    data["kind"] = kind
    if json.loads(text) != data:
        raise AssertionError(f"{path}: the textual edit is not the record meant")
    if text != old:
        path.write_text(text)
        return True
    return False


def main(results="results"):
    results = pathlib.Path(results)
    changed = [p for p in sorted(results.rglob("*.json")) if migrate(p, results)]
    print(f"rewrote {len(changed)} records")


if __name__ == "__main__":
    main(*sys.argv[1:])
