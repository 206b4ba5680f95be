"""clawgate's property-based harness, shipped so that anyone can check their own policy.

``clawgate.testing.strategies``  hypothesis strategies: shell lines from a grammar, obfuscating
                                 rewrites that keep a command's meaning, paths, tool arguments
``clawgate.testing.invariants``  the properties a policy must keep, each a plain function
``clawgate.testing.fuzz``        runs every invariant under hypothesis (``policy fuzz``)
``clawgate.testing.plugin``      the pytest plugin (``pytest --clawgate-policy my.yaml``)
``clawgate.testing.bashoracle``  real bash as the judge of what a line runs: every program a
                                 recorder stub, in one bubblewrap sandbox for many lines
``clawgate.testing.unjudged``    what bash ran for a line that an engine did not judge
``clawgate.testing.secret_corpus``  credential formats (one fake per format, with its kind) and
                                 ordinary output, to measure a scrubber on

Nothing is imported here: the pytest plugin loads this package in every pytest run that has
clawgate installed, and must cost nothing there.
"""
