"""keras_rda.lab.reporting: records, tables and plots.

- `provenance`: what a record says about where it came from (command,
  commit, versions, machine);
- `records`: the record format the runs write and the reports read
  (`metric_key`, `json_safe`);
- `report`: regenerates the tables in the README and `docs/` from
  `results/` (`keras-rda report`);
- `benchmark_tables`: renders the benchmark records;
- `speed_summary`: the README's speed table, gathered from benchmark
  records (`python -m keras_rda.lab.reporting.speed_summary`);
- `memory_plots`: the UW paper's figures;
- `enwik8_plot`: bits-per-character curves of enwik8 runs
  (`python -m keras_rda.lab.reporting.enwik8_plot`).
"""
