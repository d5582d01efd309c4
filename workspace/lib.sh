# Moved to scripts/lib.sh; kept only until every caller sources that file directly.
# shellcheck shell=bash source=../scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
