"""The CLI's file readers: suffixes, headers, and one-line errors that name the file and line."""

from __future__ import annotations

import numpy as np
import pytest

from modelcompare._foundation.io import DataError, read_matrix, read_table


def test_matrix_from_every_format(tmp_path):
    x = np.arange(6.0).reshape(3, 2)
    np.save(tmp_path / "x.npy", x)
    np.savez(tmp_path / "x.npz", a=x, b=x + 1)
    (tmp_path / "x.csv").write_text("0,1\n2,3\n4,5\n")
    (tmp_path / "h.tsv").write_text("u\tv\n0\t1\n2\t3\n4\t5\n")
    assert np.array_equal(read_matrix(str(tmp_path / "x.npy")), x)
    assert np.array_equal(read_matrix(f"{tmp_path / 'x.npz'}:b"), x + 1)
    assert np.array_equal(read_matrix(str(tmp_path / "x.csv")), x)
    assert np.array_equal(read_matrix(str(tmp_path / "h.tsv")), x)
    assert np.array_equal(read_matrix(str(tmp_path / "h.tsv"), columns=["v"]), x[:, 1:])
    assert read_matrix(str(tmp_path / "x.npy")).dtype == np.float64


def test_one_dimensional_arrays_are_one_column(tmp_path):
    np.save(tmp_path / "v.npy", np.arange(4))
    assert read_matrix(str(tmp_path / "v.npy")).shape == (4, 1)


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("ragged.csv", "1,2\n3,4,5\n6,7\n", r"^\S*ragged\.csv: line 2 has 3 fields .* 2;"),
        ("late.csv", "a,b\n1,2\n3,4\n5,6,7\n", r"late\.csv: line 4 has 3 fields"),
        ("empty.csv", "", r"empty\.csv: the file is empty\.$"),
        ("header.csv", "a,b\n", r"header\.csv: the table has no data rows"),
        ("words.csv", "a,b\nx,y\n", r"words\.csv: column\(s\) \['a', 'b'\] are not numeric"),
        ("data.json", "[1, 2]", r"unsupported file type '\.json'"),
    ],
)
def test_bad_tables_give_one_line_errors(tmp_path, name, content, match):
    (tmp_path / name).write_text(content)
    with pytest.raises(DataError, match=match) as info:
        read_matrix(str(tmp_path / name))
    assert "\n" not in str(info.value)


def test_bad_binary_files(tmp_path):
    (tmp_path / "junk.npy").write_bytes(b"not an array")
    np.save(tmp_path / "words.npy", np.array(["a", "b"]))
    np.savez(tmp_path / "two.npz", a=np.zeros(2), b=np.ones(2))
    cases = [
        ("junk.npy", r"junk\.npy: could not read file"),
        ("words.npy", "must be numeric"),
        ("two.npz", r"holds arrays \['a', 'b'\]; name one"),
        ("two.npz:c", "has no array 'c'"),
        ("missing.npy", "no such file"),
        ("missing.csv", "no such file"),
    ]
    for spec, match in cases:
        with pytest.raises(DataError, match=match) as info:
            read_matrix(str(tmp_path / spec))
        assert "\n" not in str(info.value)


def test_read_table_messages_list_table_formats(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(3))
    with pytest.raises(DataError, match=r"for a table \(use \.csv, \.tsv, \.parquet\)"):
        read_table(str(tmp_path / "x.npy"))


def test_unknown_columns_are_named(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2\n3,4\n")
    with pytest.raises(DataError, match=r"no column\(s\) \['z'\]; it has \['a', 'b'\]"):
        read_table(str(tmp_path / "t.csv"), columns=["z"])
