"""The command a page shows under a table, from a record's structured commands
(`{"argv": [...], "env": {...}}` and optionally a `note`, see
`keras_rda.lab.reporting.provenance.command`): joined by ` && `, each
writing the record where it is committed."""

import re
import shlex

# `keras-rda` subcommands that write a record to `--results-dir`/`--name`.
_RUN_SUBCOMMANDS = ("compare", "train")


def command_text(command):
    """A structured command as one shell line: `ENV=VALUE ... argv`, then
    its note as a comment.

    Example:

    >>> command_text({"argv": ["keras-rda", "compare", "addition"],
    ...               "env": {"KERAS_BACKEND": "jax"}})
    'KERAS_BACKEND=jax keras-rda compare addition'
    """
    words = [f"{key}={shlex.quote(value)}" for key, value in command["env"].items()]
    text = " ".join([*words, shlex.join(command["argv"])])
    return text + (f"  # {command['note']}" if command.get("note") else "")


def _is_run(argv):
    return argv[0] == "keras-rda" and argv[1] in _RUN_SUBCOMMANDS


def _option(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


def _default_name(argv):
    """The record name a run command writes without `--name`: TASK-compare
    or TASK-MODEL."""
    if argv[1] == "compare":
        return f"{argv[2]}-compare"
    return f"{argv[2]}-{_option(argv, '--model')}"


def _placed(command, record, runs):
    """`command` writing record `record` (its name under `results/`) where it
    is committed; a run command only where it is the record's one (`runs`
    is how many the record has)."""
    argv = list(command["argv"])
    if "--json" in argv:
        argv[argv.index("--json") + 1] = f"results/{record}.json"
    elif _is_run(argv) and runs == 1:
        folder, _, name = f"results/{record}".rpartition("/")
        default = _default_name(argv)
        argv += ["--results-dir", folder]
        argv += ["--name", name] if name != default else []
    return {**command, "argv": argv}


def user_command(commands, record=None):
    """The record's structured `commands` as the one line (joined by ` && `) a
    user runs from a checkout to remake the record `record` (its name under
    `results/` without `.json`; None: the commands as they are).

    Example:

    >>> user_command(
    ...     [{"argv": ["keras-rda", "compare", "addition", "--steps", "4000"],
    ...       "env": {}}],
    ...     "rda_paper/addition-compare",
    ... )
    'keras-rda compare addition --steps 4000 --results-dir results/rda_paper'
    """
    if record is not None:
        runs = sum(_is_run(c["argv"]) for c in commands)
        commands = [_placed(c, record, runs) for c in commands]
    return " && ".join(command_text(c) for c in commands)


# A whole path of one machine, up to a space, a comma, a bracket or a quote.
_MACHINE_PATH = re.compile(
    r"(?<![\w.~$/-])(?:/(?:work|tmp|home|root|Users|mnt|var)/|[A-Za-z]:\\)[^\s,;()'\"`]*"
)


def without_machine_paths(text):
    """`text` (a record's note) with each absolute path of a machine
    (`/work/...`, `/tmp/...`, `/home/...`, `C:\\...`) replaced by its file
    name, e.g. "local file /work/shared/data/ag_news_test.csv" as "local
    file ag_news_test.csv"."""

    def name(match):
        path = match.group(0).rstrip(".:")
        tail = match.group(0)[len(path) :]
        return re.split(r"[/\\]", path.rstrip("/\\"))[-1] + tail

    return _MACHINE_PATH.sub(name, text)
