#!/bin/sh
# Mahjong Ledger's PostgreSQL backups, as compose.yaml's `backup` service runs them: in the
# postgres image, so pg_dump and pg_restore are the server's own version. It connects with
# libpq's variables (PGHOST, PGUSER, PGPASSWORD, PGDATABASE). See docs/backups.md.
#
#   backup.sh               a copy now, then one every BACKUP_INTERVAL seconds (default 86400):
#                           BACKUP_DIR/mjledger-<UTC time>.dump (pg_dump --format=custom) and its
#                           SHA-256 beside it (.dump.sha256, as sha256sum writes it); the newest
#                           BACKUP_KEEP (default 14) kept; a failure is logged as FAILED (on
#                           stderr) and tried again at the next interval
#   backup.sh check         succeeds while the newest copy is younger than twice the interval
#   backup.sh restore FILE  FILE into the database PGDATABASE, which must hold no tables, in one
#                           transaction; FILE is checked first (its checksum, when beside it, and
#                           read whole), and a damaged one, or one of a schema revision the bot's
#                           migrations (BACKUP_MIGRATIONS, default /migrations) do not know, is
#                           refused (exit 2) with nothing written
#   A copy is named only once it and its checksum are written; a copy whose checksum cannot
#   be written (a full disk) is removed and logged as FAILED, and `check` counts only copies
#   with their checksum.
set -u

dir=${BACKUP_DIR:-/backups}
migrations=${BACKUP_MIGRATIONS:-/migrations}  # the bot's db/migrations/versions (for restore)
interval=${BACKUP_INTERVAL:-86400}
keep=${BACKUP_KEEP:-14}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

log() { echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) mjledger-backup: $*"; }
fail() { log "$*" >&2; }
# the one line of a pg tool's complaint that says why
why() { grep -m1 -i 'error\|fatal' "$1" || head -n1 "$1"; }

whole() {  # $1 names the setting, $2 is its value: a whole number of at least 1
    case $2 in
        '' | *[!0-9]*) fail "$1 must be a whole number of at least 1, not '$2'"; exit 2 ;;
    esac
    [ "$2" -ge 1 ] || { fail "$1 must be at least 1, not $2"; exit 2; }
}

prune() {  # dated names sort by time: all but the newest $keep go
    ls "$dir" | grep -E '^mjledger-[0-9]{8}T[0-9]{6}Z\.dump$' | sort -r | tail -n +"$((keep + 1))" |
        while read -r old; do
            rm -f "$dir/$old" "$dir/$old.sha256" && log "removed $old (the newest $keep are kept)"
        done
}

backup_once() {
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    name="mjledger-$stamp.dump"
    partial="$dir/.$name.partial"
    # written under another name, read back, then named: a copy with its name is whole
    if ! { pg_dump --format=custom --file="$partial" 2>"$work/errors" &&
        pg_restore --list "$partial" >/dev/null 2>"$work/errors" && sync "$partial"; }; then
        fail "FAILED: no copy at $stamp: $(why "$work/errors")"
        rm -f "$partial"
        return
    fi
    sum=$(sha256sum <"$partial" | cut -d ' ' -f 1)
    # the checksum first, then the copy's name: a copy is never named without its checksum
    if ! { echo "$sum  $name" >"$dir/.$name.sha256.partial" && sync "$dir/.$name.sha256.partial" &&
        mv "$dir/.$name.sha256.partial" "$dir/$name.sha256"; } 2>"$work/errors"; then
        fail "FAILED: no copy at $stamp: cannot write its checksum: $(why "$work/errors")"
        rm -f "$partial" "$dir/.$name.sha256.partial" "$dir/$name.sha256"
        return
    fi
    if ! mv "$partial" "$dir/$name" 2>"$work/errors"; then
        fail "FAILED: no copy at $stamp: $(why "$work/errors")"
        rm -f "$partial" "$dir/$name.sha256"
        return
    fi
    log "wrote $name ($(wc -c <"$dir/$name") bytes, SHA-256 $sum)"
    prune
}

loop() {
    whole BACKUP_INTERVAL "$interval"
    whole BACKUP_KEEP "$keep"
    umask 077  # the copies hold every chat's books
    mkdir -p "$dir" || exit 1
    log "a copy of database ${PGDATABASE:-} every $interval s into $dir, the newest $keep kept"
    rm -f "$dir"/.mjledger-*.partial  # a copy cut short by a stop
    trap 'kill "$sleeper" 2>/dev/null; rm -f "$dir"/.mjledger-*.partial; exit 0' TERM INT
    sleeper=
    while :; do
        backup_once
        sleep "$interval" &
        sleeper=$!
        wait "$sleeper"
    done
}

check() {  # healthy: a recent copy with its checksum beside it
    whole BACKUP_INTERVAL "$interval"
    minutes=$(((2 * interval + 59) / 60))
    for copy in $(find "$dir" -maxdepth 1 -name 'mjledger-*.dump' -mmin "-$minutes"); do
        [ -s "$copy.sha256" ] && return 0
    done
    return 1
}

known() {  # $1 is a schema revision of the migrations mounted at BACKUP_MIGRATIONS
    grep -qs "^revision[^=]*= *[\"']$1[\"']" "$migrations"/*.py
}

restore() {
    file=$1
    [ -f "$file" ] || { fail "there is no file $file"; exit 2; }
    case $(basename "$file") in
        .*.partial | .*.partial-* | .*.restoring-*)
            fail "$file is the unfinished work file of a copy cut short, not a backup: nothing was restored"
            exit 2 ;;
    esac
    if [ -f "$file.sha256" ] && [ "$(sha256sum <"$file" | cut -d ' ' -f 1)" != \
        "$(cut -d ' ' -f 1 "$file.sha256" | tr 'A-F' 'a-f')" ]; then
        fail "$file is damaged, nothing was restored: it does not match its checksum in $file.sha256"
        exit 2
    fi
    if ! pg_restore --list "$file" >"$work/list" 2>"$work/errors" ||
        ! pg_restore --file=/dev/null "$file" 2>"$work/errors"; then
        fail "$file is damaged, nothing was restored: $(why "$work/errors")"
        exit 2
    fi
    if ! grep -q '^[0-9]*; [0-9]* [0-9]* TABLE public alembic_version ' "$work/list"; then
        fail "$file is not a Mahjong Ledger backup of schema public, nothing was restored"
        exit 2
    fi
    pg_restore --data-only --schema=public --table=alembic_version --file=- "$file" \
        >"$work/revision" 2>"$work/errors"
    revision=$(sed -n '/^COPY .*alembic_version/{n;p;q}' "$work/revision")
    if ! ls "$migrations"/*.py >/dev/null 2>&1; then
        fail "cannot tell which schema revisions the bot knows: mount its db/migrations/versions at $migrations (compose.yaml does), nothing was restored"
        exit 2
    fi
    if [ -z "$revision" ] || ! known "$revision"; then
        fail "$file holds schema revision '$revision', which this version of Mahjong Ledger does not know: restore it with the version that wrote it, nothing was restored"
        exit 2
    fi
    if ! tables=$(psql -XAt -c "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'" \
        2>"$work/errors"); then
        fail "cannot reach the database: $(why "$work/errors")"
        exit 1
    fi
    if [ "$tables" != 0 ]; then
        fail "database ${PGDATABASE:-} already holds $tables tables: restore only into an empty one"
        exit 2
    fi
    if ! pg_restore --single-transaction --exit-on-error --no-owner --no-privileges \
        --schema=public --dbname="${PGDATABASE:?set PGDATABASE}" "$file" 2>"$work/errors"; then
        fail "pg_restore failed, nothing was restored: $(why "$work/errors")"
        exit 1
    fi
    log "restored $file into ${PGDATABASE}; the bot brings its schema up to date when it starts"
}

case ${1:-loop} in
    loop) loop ;;
    check) check ;;
    restore)
        [ $# -eq 2 ] || { fail "usage: backup.sh restore FILE"; exit 2; }
        restore "$2"
        ;;
    *) fail "usage: backup.sh [loop | check | restore FILE]"; exit 2 ;;
esac
