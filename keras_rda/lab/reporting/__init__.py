"""keras_rda.lab.reporting: records, tables and plots.

- `provenance`: where a record came from (command, commit, versions,
  machine); `records`: the record format the runs write and reports read;
- `report`: the tables in the README and `docs/`, rebuilt from `results/`
  (`keras-rda report`), with `claims` (the papers' verdict tables), `fixes`
  (records run before a fix), `commands` and `benchmark_tables`;
- `speed_summary`: the README's speed table, from benchmark records;
- `memory_plots`, `enwik8_plot`: the UW paper's figures, enwik8 curves.
"""
