"""The batched MLP engine: the sbibm recipe, a compiled CPU kernel, a batched torch engine and the trainer that picks one."""
