# The README's two commands: `make run` (the table service on the virtual rig) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: run test lint system bench train train-committee train-pile train-pile-detector train-pile-member train-play-member club

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

system:
	bash scripts/install-system.sh

# HOST=0.0.0.0 (the default) lets the phones at the table open their seat links; the seat and operator
# tokens guard everything private. HOST=127.0.0.1 keeps the service to this machine.
HOST ?= 0.0.0.0
PORT ?= 8000

run: $(STAMP) system
	$(BIN)/hongsi serve --sim --host $(HOST) --port $(PORT)

# The card room: mosquitto and PostgreSQL (Debian's) as local services in .club/, then the club server and
# its room page (http://127.0.0.1:8100/). It prints how tables join (hongsi serve --sim --club …).
club: $(STAMP) system
	$(BIN)/hongsi club up .club --tables $${TABLES:-3} --port $${PORT:-8100}

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) system lint
	$(BIN)/pytest -n 2 --dist loadfile -q

# Re-trains the card model (vision/models/card_corner.onnx); torch is the CPU build of the `train` extra.
train: $(STAMP)
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m vision.train

# Re-trains the reader's other four committee members (about 45 min each on 2 cores).
train-committee: $(STAMP)
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m vision.train --seed 29 --sensor-codec --pip-shapes --storage int8 --out vision/models/card_corner_b.onnx
	$(BIN)/python -m vision.train --seed 47 --sensor-codec --pip-shapes --holdout 0.5 --holdout-subset webcam_handheld --storage int8 --out vision/models/card_corner_c.onnx
	$(BIN)/python -m vision.train --seed 11 --norm channel --storage int8 --out vision/models/card_corner_d.onnx
	$(BIN)/python -m vision.train --seed 19 --size 48 --width 16 --storage int8 --out vision/models/card_corner_e.onnx

# Re-trains the pile reader's index model (vision/models/pile_index.onnx) on crops of rendered piles of the
# training designs (about 33 min on one core; the card art is rasterised first).
train-pile: $(STAMP)
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m vision.card_art
	nice -n 10 $(BIN)/python -m vision.pile_train --minutes 33

# Re-trains the pile committee's own member (vision/models/pile_member.onnx) on the corner detector's cuts of
# 3,000 rendered piles of the training designs (about 5 min to render, then 25 min of training, one core).
train-pile-member: $(STAMP)
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m vision.card_art
	nice -n 10 $(BIN)/python -m vision.pile_member_train --piles 3000 --val-piles 200 --minutes 25

# Re-trains the member the play reader pools on a play's new indices (vision/models/play_member.onnx): the same
# trainer on 21 training designs, the five the committee's rules are chosen on left out (about 8 min to render on
# one core, then 45 min of training; docs/vision-decisions.md, stop 54).
train-play-member: $(STAMP)
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m vision.card_art
	nice -n 10 $(BIN)/python -m vision.pile_member_train --piles 3000 --val-piles 200 --minutes 45 \
		--leave-out kde-standard --leave-out tango --leave-out bellot --leave-out lattmann --leave-out kde-jolly-royal \
		--out vision/models/play_member.onnx

# Re-trains the pile reader's corner detector (vision/models/pile_corners.onnx): 3,200 rendered piles of the
# training designs (about 4 min on 2 cores), then 30 min of training on 2 cores.
train-pile-detector: $(STAMP)
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m vision.card_art
	$(BIN)/python -m vision.pile_detect_data --piles 3200 --out build/pile_detect.npz
	$(BIN)/python -m vision.pile_detect_train --data build/pile_detect.npz --minutes 30

# The peers the benchmarks compare against (OpenSpiel, RLCard) live in their own environment, never in .venv.
# (The stamp is -2 since open_spiel joined the peers, so an older .benchvenv gets it too.)
.benchvenv/.installed-2:
	$(PY) -m venv .benchvenv
	.benchvenv/bin/pip install -q rlcard numpy open_spiel
	touch $@

bench: $(STAMP) .benchvenv/.installed-2
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done
