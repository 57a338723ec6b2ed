"""The foundation every part builds on: validation, seeds, results, errors, threads, parallel helpers, I/O and the batched MLP engine."""
