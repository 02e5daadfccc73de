"""The command a reader runs to remake a record, from the command that made it.

A record keeps the raw command line it was made with, scratch folders of
the machine it ran on included (`--out /work/runs/add1000`, `--results-dir
/tmp/rec`), and, for a record gathered from several processes, every one
of their commands. A page shows one command under each table, the one a
user runs from a checkout to remake that record: relative paths, the
record's own folder and name in `--results-dir`/`--name`, no scratch
outputs, and one `keras-rda` command for runs that differ only in their
seeds or models.
"""

import pathlib
import re
import shlex

# Options of the scratch outputs of a run (they decide nothing it measures).
_SCRATCH_OPTIONS = ("--out", "--verbose", "--checkpoint-dir", "--tensorboard")
# Options that say where a record goes: set to the record's own place.
_RECORD_OPTIONS = ("--results-dir", "--name")
# Options merged over the parts of a command gathered from several runs.
_MERGED_OPTIONS = ("--models", "--seeds", "--seed")
# Flags that only log more (a run with them trains the same): one part
# with them gives them to the merged command.
_LOGGING_FLAGS = ("--diagnose",)
# A part that starts with prose, e.g. "bash benchmarks/gpu/mnist.sh (runs
# cut at step 3000, ...): keras-rda compare ...": the prose is dropped.
_PROSE_PREFIX = re.compile(r"^[^:]*\([^)]*\):\s+")
# A path of one machine: POSIX from the root, a home, or a drive letter.
ABSOLUTE_PATH = re.compile(
    r"(?<![\w.~$-])(?:/(?:work|tmp|home|root|Users|mnt|var)/|~/|[A-Za-z]:\\)"
)


def _split(command):
    """The commands of `command`, joined there by ` ; ` or ` && `."""
    command = _PROSE_PREFIX.sub("", command.strip())
    return [
        part.strip() for part in re.split(r"\s+(?:;|&&)\s+", command) if part.strip()
    ]


def _options(words):
    """`(head, [(option, value or None)])`: the words before the first
    option, then each option with the value that follows it (an option
    followed by another option, or by nothing, is a flag)."""
    first = next((i for i, w in enumerate(words) if w.startswith("--")), len(words))
    head, rest, options = words[:first], words[first:], []
    index = 0
    while index < len(rest):
        word = rest[index]
        if "=" in word and word.startswith("--"):
            option, value = word.split("=", 1)
            options.append((option, value))
            index += 1
        elif index + 1 < len(rest) and not rest[index + 1].startswith("--"):
            options.append((word, rest[index + 1]))
            index += 2
        else:
            options.append((word, None))
            index += 1
    return head, options


def _is_absolute(path):
    return bool(ABSOLUTE_PATH.match(path)) or pathlib.PurePosixPath(path).is_absolute()


def _record_path(record):
    return f"results/{record}.json"


def _clean(words, record):
    """The words of one command without scratch options, with the record's
    own path for an absolute `--json` (a script's record)."""
    head, options = _options(words)
    kept = []
    for option, value in options:
        if option in _SCRATCH_OPTIONS or option in _RECORD_OPTIONS:
            continue
        if option == "--json" and value is not None and _is_absolute(value):
            value = _record_path(record) if record else pathlib.PurePath(value).name
        kept.append((option, value))
    return head, kept


def _subcommand(head):
    """`(subcommand, task)` of a `keras-rda compare|train TASK` command
    (environment assignments may come first); None for any other."""
    words = [w for w in head if not re.match(r"^\w+=", w)]
    if len(words) >= 3 and words[0] == "keras-rda" and words[1] in ("compare", "train"):
        return words[1], words[2]
    return None


def _is_run_command(head):
    return _subcommand(head) is not None


def _union(values):
    out = []
    for value in values:
        for item in value.split(","):
            if item and item not in out:
                out.append(item)
    return ",".join(out)


def _merged(cleaned):
    """One command for commands (`(head, options)`, cleaned) that differ only
    in `--models` and `--seed`/`--seeds`, over the union of their models and
    seeds; None when their runs are not every such model with every such
    seed (the union would run more)."""
    models = [_value(opts, "--models") for _, opts in cleaned]
    seeds = [_value(opts, "--seeds") or _value(opts, "--seed") for _, opts in cleaned]
    pairs = {
        (model, seed)
        for ms, ss in zip(models, seeds)
        for model in (ms or "").split(",")
        for seed in (ss or "").split(",")
    }
    all_models, all_seeds = _union(filter(None, models)), _union(filter(None, seeds))
    product = {
        (model, seed)
        for model in all_models.split(",")
        for seed in all_seeds.split(",")
    }
    if pairs != product:
        return None
    head, options = cleaned[0]
    merged = [(o, v) for o, v in options if o not in _MERGED_OPTIONS]
    flags = {o for _, opts in cleaned for o, _ in opts if o in _LOGGING_FLAGS}
    merged = [(o, v) for o, v in merged if o not in flags]
    merged += [(flag, None) for flag in _LOGGING_FLAGS if flag in flags]
    if all_seeds:
        merged.insert(0, ("--seeds", all_seeds))
    if all_models:
        merged.insert(0, ("--models", all_models))
    return head, merged


def _value(options, name):
    return next((v for o, v in options if o == name and v is not None), None)


def _groups(cleaned):
    """The cleaned run commands grouped by all but their models and seeds,
    in first-seen order."""
    groups = {}
    for head, options in cleaned:
        key = (
            tuple(head),
            tuple(
                (o, v)
                for o, v in options
                if o not in _MERGED_OPTIONS and o not in _LOGGING_FLAGS
            ),
        )
        groups.setdefault(key, []).append((head, options))
    return list(groups.values())


def _default_name(head, options):
    """The record name a run command writes without `--name`: TASK-compare
    or TASK-MODEL."""
    subcommand, task = _subcommand(head)
    if subcommand == "compare":
        return f"{task}-compare"
    return f"{task}-{_value(options, '--model')}"


def _with_record(head, options, record):
    """`options` with `--results-dir` and `--name` placing the record where
    `results/RECORD.json` is."""
    if record is None:
        return options
    folder, name = (["results", *record.split("/")[:-1]], record.split("/")[-1])
    options = list(options) + [("--results-dir", "/".join(folder))]
    if name != _default_name(head, options):
        options.append(("--name", name))
    return options


def _text(head, options):
    words = list(head)
    for option, value in options:
        words.append(option)
        if value is not None:
            words.append(value)
    return shlex.join(words)


def user_command(command, record=None, backend=None):
    """The command a user runs from a checkout to remake a record.

    Drops the scratch outputs of the machine it ran on (`--out`,
    `--verbose`, `--checkpoint-dir`, `--tensorboard`), writes the record to
    its own place (`--results-dir results/FOLDER`, and `--name` where the
    record's name is not the command's default; an absolute `--json` path
    becomes `results/RECORD.json`), and joins the runs of a record gathered
    from several processes (commands joined by ` ; ` or ` && ` that differ
    only in `--models`, `--seed`/`--seeds` and where their outputs went)
    into one command over the union of their models and seeds. Commands
    that differ in more stay several, joined by ` && `; prose before a
    colon ("bash script.sh (runs cut at step 3000): ...") is dropped.

    Args:
        command: the record's raw command.
        record: the record's name under `results/` without `.json` (e.g.
            `"rda_paper/addition-compare"`); None: no `--results-dir` or
            `--name` is added.
        backend: the Keras backend the record ran on (its
            `versions.backend`); a `keras-rda` command run on another than
            Keras's default, TensorFlow, is prefixed `KERAS_BACKEND=...`
            unless it sets it.

    Returns:
        The command, one line.

    Example:

    >>> user_command(
    ...     "keras-rda compare addition --steps 4000 --out /work/runs/a "
    ...     "--results-dir /work/runs/a/rec --verbose 2",
    ...     "rda_paper/addition-compare",
    ... )
    'keras-rda compare addition --steps 4000 --results-dir results/rda_paper'
    """
    command, comment = _comment(command)
    parts = _split(command)
    if not parts or not all(_words_ok(part) for part in parts):
        return command.strip() + comment
    cleaned = [_clean(shlex.split(part), record) for part in parts]
    groups = _groups([c for c in cleaned if _is_run_command(c[0])])
    runs = [_merged(group) or group for group in groups]
    runs = [[run] if isinstance(run, tuple) else run for run in runs]
    # One run command writes the record; several cannot share its name.
    one = sum(len(run) for run in runs) == 1
    out = []
    for head, options in cleaned:
        if not _is_run_command(head):
            out.append(_text(head, options))
            continue
        index = next(i for i, g in enumerate(groups) if (head, options) in g)
        if groups[index][0] != (head, options):
            continue  # written with its group's first command
        for head_, options_ in runs[index]:
            if one:
                options_ = _with_record(head_, options_, record)
            out.append(_text(_with_backend(head_, backend), options_))
    return " && ".join(dict.fromkeys(out)) + comment


def _with_backend(head, backend):
    if backend in (None, "tensorflow") or any(
        w.startswith("KERAS_BACKEND=") for w in head
    ):
        return head
    return [f"KERAS_BACKEND={backend}", *head]


def _comment(command):
    """`(command, comment)`: a trailing shell comment (`  # ...`) apart."""
    match = re.search(r"\s+#\s.*$", command)
    if match is None:
        return command, ""
    return command[: match.start()], "  " + match.group(0).strip()


def _words_ok(part):
    try:
        shlex.split(part)
    except ValueError:
        return False
    return True


# A whole path of one machine, up to a space, a comma, a bracket or a quote.
_MACHINE_PATH = re.compile(
    r"(?<![\w.~$/-])(?:/(?:work|tmp|home|root|Users|mnt|var)/|[A-Za-z]:\\)[^\s,;()'\"`]*"
)


def without_machine_paths(text):
    """`text` with each absolute path of a machine (`/work/...`, `/tmp/...`,
    `/home/...`, `C:\\...`) replaced by its file name, e.g. a record's note
    "local file /work/shared/data/ag_news_test.csv" as "local file
    ag_news_test.csv".

    Args:
        text: a record's note.

    Returns:
        The text, every such path shortened to its last component.
    """

    def name(match):
        path = match.group(0).rstrip(".:")
        tail = match.group(0)[len(path) :]
        return re.split(r"[/\\]", path.rstrip("/\\"))[-1] + tail

    return _MACHINE_PATH.sub(name, text)
