#!/usr/bin/env bash
# Idempotent setup for the side-by-side benchmarks (not part of CI).
# Installs Debian's Neovim (0.7.2 on Debian 12) and the shell tools' peers (mawk, gawk,
# GNU sed and grep, ripgrep, GNU time), the Python msgpack module, builds Ultra in release
# mode and the Rust echo floor server.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if ! command -v nvim >/dev/null 2>&1; then
    $SUDO apt-get update
    $SUDO apt-get install -y neovim
fi
nvim --version | head -1

missing=""
for pkg in mawk gawk sed grep ripgrep time; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    $SUDO apt-get install -y $missing
fi

if ! python3 -c 'import msgpack' >/dev/null 2>&1; then
    python3 -m pip install msgpack
fi
python3 -c 'import msgpack; print("msgpack", msgpack.version)'

cargo build --release -p ultra

# ripgrep 15 from crates.io (Debian's is 13), the peer of bench/search_index.py.
if [ ! -x bench/work/rg15/bin/rg ]; then
    cargo install --locked ripgrep --version 15.1.0 --root bench/work/rg15
fi
bench/work/rg15/bin/rg --version | head -1

mkdir -p target/bench
if [ ! -x target/bench/echo ] || [ bench/echo.rs -nt target/bench/echo ]; then
    rustc -O --edition 2021 -o target/bench/echo bench/echo.rs
fi
if [ ! -x target/bench/rtt ] || [ bench/rtt.rs -nt target/bench/rtt ]; then
    rustc -O --edition 2021 -o target/bench/rtt bench/rtt.rs
fi
if [ ! -x target/bench/mcp_rtt ] || [ bench/mcp_rtt.rs -nt target/bench/mcp_rtt ]; then
    rustc -O --edition 2021 -o target/bench/mcp_rtt bench/mcp_rtt.rs
fi
if [ ! -x target/bench/ws_rtt ] || [ bench/ws_rtt.rs -nt target/bench/ws_rtt ]; then
    rustc -O --edition 2021 -o target/bench/ws_rtt bench/ws_rtt.rs
fi
# The WebSocket floor: a tokio-tungstenite echo.
cargo build --release -p ultra-ws --example ws_echo
echo "setup done: target/release/ultra, target/bench/{echo,rtt,mcp_rtt,ws_rtt}, target/release/examples/ws_echo"
