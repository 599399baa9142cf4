"""The club's first schema: tables, their message streams, journal rows, crops, receipts, flags,
ledgers and staff.

Revision ID: 0001
Revises:
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE club_table (
        room text NOT NULL, tbl text NOT NULL,
        first_seen timestamptz NOT NULL DEFAULT now(), last_seen timestamptz NOT NULL DEFAULT now(),
        acked bigint NOT NULL DEFAULT 0,          -- every message up to here is stored
        online boolean NOT NULL DEFAULT false,
        public_key text,                          -- the first receipt key seen (pinned)
        state jsonb NOT NULL DEFAULT '{}',        -- the public live state
        health jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (room, tbl));
    CREATE TABLE message (
        room text NOT NULL, tbl text NOT NULL, seq bigint NOT NULL, kind text NOT NULL,
        body jsonb NOT NULL, sent double precision NOT NULL, stored timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (room, tbl, seq));
    CREATE TABLE journal_row (
        room text NOT NULL, tbl text NOT NULL, seq bigint NOT NULL, round bigint NOT NULL, kind text NOT NULL,
        t double precision NOT NULL, data jsonb NOT NULL, image text, prev text NOT NULL, hash text NOT NULL,
        PRIMARY KEY (room, tbl, seq));
    CREATE INDEX journal_row_round ON journal_row (room, tbl, round, seq);
    CREATE TABLE crop (
        room text NOT NULL, tbl text NOT NULL, sha256 text NOT NULL, jpeg bytea NOT NULL,
        PRIMARY KEY (room, tbl, sha256));
    CREATE TABLE receipt (
        room text NOT NULL, tbl text NOT NULL, row_seq bigint NOT NULL, round bigint NOT NULL,
        row_kind text NOT NULL, head text NOT NULL, signature text, public_key text,
        PRIMARY KEY (room, tbl, row_seq));
    CREATE TABLE flag (
        id bigserial PRIMARY KEY, room text NOT NULL, tbl text NOT NULL,
        at timestamptz NOT NULL DEFAULT now(), reason text NOT NULL);
    CREATE TABLE ledger (
        room text NOT NULL, tbl text NOT NULL, round bigint NOT NULL, seat int NOT NULL,
        player text NOT NULL, delta bigint NOT NULL, t double precision NOT NULL, session date NOT NULL,
        PRIMARY KEY (room, tbl, round, seat));
    CREATE INDEX ledger_player ON ledger (player, t);
    CREATE TABLE staff (name text PRIMARY KEY, password_hash text NOT NULL,
                        created timestamptz NOT NULL DEFAULT now());
    """)


def downgrade() -> None:
    op.execute("DROP TABLE staff, ledger, flag, receipt, crop, journal_row, message, club_table")
