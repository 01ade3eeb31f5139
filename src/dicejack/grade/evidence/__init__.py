"""Evidence: what the reference runs say about a printed table. Internal to :mod:`dicejack.grade`.

=============  ==============================================================================
printed        what a printed table means: graded values and J; a run as dicejack prints it
levels         the significance levels (review, print-rule share, consistency share)
probes         the probe runs with a wrong M (their plan and seeds)
copies         the distance between two learned tables
references     the reference, calibration and probe runs: computing, caching, usable states
statistic      the consistency statistic's terms and its p-value
print_model    the print rules applied to the reference runs' counts
calibration    the calibration built from a reference set: nulls, print model, copy distance
consistency    the statistic T and its p-value (its docstring is the specification)
print_rules    the print-rule checks of a table
power          can these settings see the bugs that matter?
bug_models     the bug models: programs run so diagnosis can ask which bug explains an output
=============  ==============================================================================
"""
