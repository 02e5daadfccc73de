"""Markdown tables of the `benchmarks/` records (`--json`), for `keras-rda
report`, so that no number in the docs is typed by hand: `RENDERERS` maps a
record's `kind` (its benchmark's) to the function that renders it."""


def _ratio(value, reference):
    return f"{value:.1f} ({value / reference:.2f})" if reference else f"{value:.1f}"


def _code(name):
    """A kernel's name as code, unless it has its own backticks (TF's
    "`Type` (op name)")."""
    return name if "`" in name else f"`{name}`"


def machine_text(data):
    """Where a record ran: its accelerator, else the CPU's usable cores."""
    machine = data.get("machine") or {}
    accelerators = machine.get("accelerators")
    if accelerators:
        return ", ".join(accelerators)
    cores = machine.get("usable_cores")
    return f"CPU, {cores} cores" if cores else "CPU"


def _where(data):
    versions = data["versions"]
    backend = data["backend"]
    return (
        f"{machine_text(data)}; {backend} {versions.get(backend, '')}, "
        f"keras {versions['keras']}"
    )


def _memory_speed_header(data):
    """`memory_speed.py`: the sizes of its memory models."""
    sizes = data["sizes"]
    return (
        f"{_where(data)}; LSTM controller {sizes['units']} units, "
        f"{sizes['memory_size']} slots of {sizes['word_size']}, batch "
        f"{sizes['batch']}, memory models' own y_t of {sizes['output_units']} "
        f"as output, median {data['clock']} time of {data['rounds']} "
        "interleaved rounds. Each model's time per training step as a ratio "
        "to the LSTM controller alone and, in brackets, to the "
        "regular-writing model it replaces:"
    )


def _rnn_speed_header(data):
    """`rnn_speed.py`: its sizes and, with `--floors`, what they are."""
    settings = data["settings"]
    # rnn_speed.py --return-sequences: the loss reads every step's output.
    every_step = "loss on every step, " if settings.get("return_sequences") else ""
    text = (
        f"{_where(data)}; {settings['units']} units, batch "
        f"{settings['batch_size']}, input dim {settings['input_dim']}, "
        f"{every_step}median {settings['clock']} time of {settings['repeats']} "
        "interleaved steps"
    )
    if settings.get("floors"):  # rnn_speed.py --floors
        text += (
            f". Each model's time as a ratio to `{_reference(data)}`'s and, in "
            "brackets, to its unit's matmul floor (the recurrent matmuls of the "
            "training step alone, in the same loop: `rnn_speed.matmul_floor`)"
        )
    return text + ":"


def _reference(data):
    """The model a speed record's ratios are to (`rnn_speed.py --reference`;
    memory_speed.py's are to the LSTM)."""
    return data["settings"]["reference"] if data["kind"] == "rnn_speed" else "LSTM"


def _model_table(keys, models, entry):
    """Markdown lines of a table with a row per (T, XLA) key and a column per
    model; `entry(key, model)` gives each cell's text."""
    lines = [
        "| T | XLA | " + " | ".join(models) + " |",
        "|---|---|" + "---:|" * len(models),
    ]
    for key in keys:
        entries = [entry(key, model) for model in models]
        lines.append(
            f"| {key[0]} | {'on' if key[1] else 'off'} | " + " | ".join(entries) + " |"
        )
    return lines


def _milliseconds(*values):
    """Milliseconds as printed: with one decimal where the largest is under
    10 ms (a GPU's steps), whole otherwise."""
    digits = 1 if max(values) < 10 else 0
    return [f"{value:.{digits}f}" for value in values]


def _span(values, digits):
    return f"{min(values):.{digits}f}-{max(values):.{digits}f}"


def _copies_table(data, keys, models, cell):
    """`memory_speed.py --instances N`: the lowest and highest ratio of a
    copy to the same copy of the LSTM and (in brackets) of the reference."""

    def entry(key, model):
        row = cell.get((*key, model), {})
        if "instance_ms" not in row:
            return ""
        if model == "LSTM":
            low, high = _milliseconds(min(row["instance_ms"]), max(row["instance_ms"]))
            return f"{low}-{high} ms"
        text = _span(row["instance_ratios_to_lstm"], 2)
        if row.get("instance_ratios_to_reference"):
            text += f" ({_span(row['instance_ratios_to_reference'], 2)})"
        return text

    return [
        f"Each of the {data['instances']} copies of a model (built apart, timed "
        "interleaved) against the same copy of the LSTM and, in brackets, of "
        "the regular-writing model, lowest-highest:",
        "",
        *_model_table(keys, models, entry),
    ]


def speed_record_markdown(data):
    """A speed record (`rnn_speed.py`, `memory_speed.py`) as Markdown: a row
    per (T, XLA), a column per model (the reference's time, every other
    model's ratio to it and to its own `reference`), then the spread of its
    copies, its first steps and its peak memory where it measured them."""
    rows = data["rows"]
    models = list(dict.fromkeys(row["model"] for row in rows))
    keys = list(dict.fromkeys((row["length"], row["xla"]) for row in rows))
    cell = {(r["length"], r["xla"], r["model"]): r for r in rows}

    def ratios(key, model):
        row = cell.get((*key, model))
        if row is None:
            return ""
        if model == _reference(data):
            return f"1.00 ({_milliseconds(row['ms_per_step'])[0]} ms)"
        if row.get("ratio_to_lstm") is None:
            return f"{_milliseconds(row['ms_per_step'])[0]} ms"
        if row.get("ratio_to_reference") is not None:
            return f"{row['ratio_to_lstm']:.2f} ({row['ratio_to_reference']:.2f})"
        return f"{row['ratio_to_lstm']:.2f}"

    def first_step(key, model):
        row = cell.get((*key, model), {})
        return f"{row['first_step_s']:.1f}" if "first_step_s" in row else ""

    memory_speed = data["kind"] == "memory_speed"
    header = _memory_speed_header if memory_speed else _rnn_speed_header
    lines = [header(data), "", *_model_table(keys, models, ratios)]
    if memory_speed and data["instances"] > 1:  # memory_speed.py --instances
        lines += ["", *_copies_table(data, keys, models, cell)]
    if memory_speed:
        lines += [
            "",
            "Each model's first training step, in wall seconds (tracing and, "
            "under XLA, compilation):",
            "",
            *_model_table(keys, models, first_step),
        ]
    memory = data.get("memory")
    if memory:
        lines += [
            "",
            f"Peak memory of one training step at T = {memory['length']} (the "
            "rise of the process's peak RSS over its RSS before the step):",
            "",
            "| model | MiB |",
            "|---|---:|",
        ]
        for model, m in memory["models"].items():
            lines.append(f"| {model} | {m['step_increase_mib']:.0f} |")
    return "\n".join(lines)


def cost_record_markdown(data):
    """A cost record (`rnn_cost.py`) as Markdown: per model, XLA's counts of
    one time step of the training program and, where measured, the working
    memory of the whole program at `memory_length`; ratios to the LSTM in
    brackets."""
    settings = data["settings"]
    rows = data["rows"]
    reference = next((r for r in rows if r["model"] == "LSTM"), None)
    memory_length = settings.get("memory_length")
    with_memory = bool(memory_length) and all("temp_mib" in r for r in rows)
    columns = [
        ("flops", 1e6, "MFLOP / step"),
        ("bytes accessed", 1e6, "MB accessed / step"),
        ("transcendentals", 1e3, "k transcendentals / step"),
    ]
    if with_memory:
        columns.append(("temp_mib", 1, f"working memory at T = {memory_length}, MiB"))
    lines = [
        f"One time step of the compiled training program (forward and "
        f"backward), {settings['units']} units, batch {settings['batch_size']}, "
        f"input dim {settings['input_dim']}; XLA's counts for the CPU, ratio "
        "to the LSTM in brackets:",
        "",
        "| model | " + " | ".join(title for _, _, title in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for row in rows:
        cells = [
            _ratio(row[key] / scale, reference[key] / scale if reference else None)
            for key, scale, _ in columns
        ]
        lines.append(f"| {row['model']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def profile_record_markdown(data, top=4):
    """A profile record (`rnn_profile.py`) as Markdown: per model, the
    kernels' time per training step, the share launched on every time step
    (inside the loop), and the `top` kernels (ms per step, launches per
    step); on TensorFlow also the time by op type."""
    settings = data["settings"]
    results = data["results"]
    by_type = any(r.get("by_type") for r in results)
    backend = data["backend"]
    title = "op" if backend == "tensorflow" else "kernel"
    columns = ["model", f"all {title}s", "in the time loop", f"top {title}s"]
    if by_type:
        columns.append("by op type")
    lines = [
        f"{machine_text(data)}; {backend} {data['versions'].get(backend, '')}: "
        "gradient of one "
        f"training step, T = {settings['length']}, {settings['units']} units, "
        f"batch {settings['batch_size']}, input dim {settings['input_dim']}; "
        f"ms per training step, mean of {settings['repeats']} traced steps:",
        "",
        "| " + " | ".join(columns) + " |",
        "|---|---:|---:|---|" + ("---|" if by_type else ""),
    ]
    for result in results:
        total = result["kernels_ms_per_step"]
        kernels = ", ".join(
            f"{_code(k['kernel'])} {k['ms_per_step']:.0f} "
            f"(x{k['launches_per_step']:.0f})"
            for k in result["kernels"][:top]
        )
        cells = [
            result["model"],
            f"{total:.0f} ms",
            f"{result['loop_kernels_ms_per_step'] / total:.0%}",
            kernels,
        ]
        if by_type:
            cells.append(
                ", ".join(
                    f"{t['type']} {t['ms_per_step']:.0f}"
                    for t in (result.get("by_type") or [])[:top]
                )
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parallel_speed_record_markdown(data):
    """`parallel_rda_speed.py`: a row per (backend, T, XLA), a column per
    layer, each cell its time per training step and, in brackets, that time
    over `keras.layers.LSTM`'s in the same row (lower is faster);
    then, where the record has them, each layer's first training step."""
    environment = next(iter(data["environments"].values()))
    settings = data["settings"]
    versions = environment["versions"]
    backends = ", ".join(
        f"{b} {env['versions'].get(b, '')}" for b, env in data["environments"].items()
    )
    header = (
        f"{machine_text(environment)}; {backends}, keras {versions['keras']}; "
        f"{settings['units']} units, batch {settings['batch_size']}, input dim "
        f"{settings['input_dim']}, median {settings['clock']} time "
        f"of {settings['repeats']} steps ({settings['long_repeats']} at "
        "T = 10,000). Time per training step and, in brackets, that time over "
        "`keras.layers.LSTM`'s (lower is faster):"
    )
    models = list(dict.fromkeys(row["model"] for row in data["rows"]))
    groups = {}
    for row in data["rows"]:
        key = (row["backend"], row["length"], row["xla"])
        groups.setdefault(key, {})[row["model"]] = row
    head = [
        "| backend | T | XLA | " + " | ".join(_code(m) for m in models) + " |",
        "|---|---|---|" + "---:|" * len(models),
    ]

    def table(cell):
        lines = list(head)
        for (backend, length, xla), rows in groups.items():
            cells = ["" if model not in rows else cell(rows[model]) for model in models]
            lines.append(
                f"| {backend} | {length:,} | {'on' if xla else 'off'} | "
                + " | ".join(cells)
                + " |"
            )
        return lines

    lines = [
        header,
        "",
        *table(
            lambda row: (
                "fails"
                if "error" in row
                else f"{row['ms_per_step']:.1f} ms ({1 / row['speedup_vs_LSTM']:.2f}x)"
            )
        ),
        "",
        "Each layer's first training step, in wall seconds (tracing and, "
        "under XLA, compilation):",
        "",
        *table(
            lambda row: f"{row['first_step_s']:.1f}" if "first_step_s" in row else ""
        ),
    ]
    return "\n".join(lines)


def zoo_step_record_markdown(data):
    """`zoo_step_speed.py`: a row per (length, batch, units, model), its
    median training step and that time over the reference model's."""
    header = (
        f"{_where(data)}; task `{data['task']}`, XLA "
        f"{'on' if data['xla'] else 'off'}, median {data['clock']} "
        f"time of {data['repeats']} interleaved steps; ratio = time / "
        f"`{data['reference']}`'s of the same row's sizes (lower is faster):"
    )
    lines = [
        header,
        "",
        "| length | steps | batch | units | model | ms / step | ratio |",
        "|---:|---:|---:|---:|---|---:|---:|",
    ]
    for row in data["rows"]:
        lines.append(
            f"| {row['seq_len']} | {row['steps_per_sequence']} | {row['batch']} | "
            f"{row['units']} | `{row['model']}` | {row['ms']:.0f} | "
            f"{row['ratio']:.2f} |"
        )
    return "\n".join(lines)


def compare_speed_record_markdown(data):
    """`compare_speed.py`: a row per model, its steps per second in a paper
    comparison from the earlier commit and from this one, and their ratio."""
    before, after = (
        (data["commits"].get(tree) or "?")[:7] for tree in ("before", "after")
    )
    jit = " --jit" if data["xla"] else ""
    header = (
        f"{_where(data)}; `keras-rda compare {data['task']} --scale "
        f"{data['scale']} --steps {data['steps']}{jit}`, "
        f"each model's steps over its training seconds (first step's tracing "
        f"and the evaluation included), median of {data['repeats']} interleaved "
        f"runs of each commit; speed-up = after / before (higher is faster):"
    )
    lines = [
        header,
        "",
        f"| model | steps/s at `{before}` | steps/s at `{after}` | speed-up |",
        "|---|---:|---:|---:|",
    ]
    for row in data["rows"]:
        lines.append(
            f"| `{row['model']}` | {row['before_steps_per_s']:.3g} | "
            f"{row['after_steps_per_s']:.3g} | {row['speedup']:.2f}x |"
        )
    return "\n".join(lines)


#: A benchmark record's `kind` -> its renderer.
RENDERERS = {
    "rnn_speed": speed_record_markdown,
    "memory_speed": speed_record_markdown,
    "compare_speed": compare_speed_record_markdown,
    "zoo_step_speed": zoo_step_record_markdown,
    "rnn_cost": cost_record_markdown,
    "rnn_profile": profile_record_markdown,
    "parallel_rda_speed": parallel_speed_record_markdown,
}
