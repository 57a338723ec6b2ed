"""A small feature extractor for the shipped digits: the grey level of each of the 64 pixels.

``modelcompare features examples/data/digits_p.npy --extractor examples/data/digit_features.py:pixels``
loads ``pixels`` from this file. It receives float images in [0, 1], shape (N, 3, 8, 8).
"""


def pixels(batch):
    """(N, 3, 8, 8) → (N, 64): the mean over the three (equal) channels, flattened."""
    return batch.mean(dim=1).flatten(1)
