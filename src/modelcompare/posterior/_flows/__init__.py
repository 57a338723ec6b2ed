"""Flows and their adapters: the conditional flow interface, the reference flows and the wrappers
of sbi, zuko and nflows estimators. Every other room of the posterior wing builds on them."""
