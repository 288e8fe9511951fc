#!/usr/bin/env bash
# mdBook, which builds the book in docs/ (`mdbook build docs`, into
# target/book): kept if this machine has the pinned version, else installed
# from crates.io at it, without the `serve` and `watch` features (a web
# server and a file watcher the build does not use; `search` stays, for
# the book's search box).
set -euo pipefail
version=0.4.52
if [ "$(mdbook --version 2>/dev/null)" = "mdbook v$version" ]; then
  mdbook --version
  exit 0
fi
cargo install mdbook --locked --version "$version" --no-default-features --features search
