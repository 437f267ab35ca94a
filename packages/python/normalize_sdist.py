"""Rewrites an sdist so that two builds give the same bytes: setuptools stamps the files it generates (PKG-INFO,
setup.cfg, the directories) and the gzip header with the clock. Entries keep their order and contents; every time
becomes SOURCE_DATE_EPOCH, owners become 0/root-less, the gzip header carries no name or time.

    normalize_sdist.py SDIST.tar.gz
"""
import gzip
import io
import os
import sys
import tarfile

path = sys.argv[1]
epoch = int(os.environ["SOURCE_DATE_EPOCH"])
raw = io.BytesIO()
with tarfile.open(path, "r:gz") as src, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz, \
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as dst:
    for m in src.getmembers():
        m.mtime, m.uid, m.gid, m.uname, m.gname = epoch, 0, 0, "", ""
        m.pax_headers = {}
        dst.addfile(m, src.extractfile(m) if m.isfile() else None)
with open(path, "wb") as f:
    f.write(raw.getvalue())
