"""The batched MLP engine: the sbibm recipe, a compiled CPU kernel, a batched torch engine and the trainer that picks one.

Modules, bottom up: ``recipe`` (constants and shared pieces; imports no engine), ``native`` (the
compiled CPU kernel), ``torch_engine`` (the batched torch network), ``trainer`` (``train_mlp``,
the entry point, which picks an engine).
"""
