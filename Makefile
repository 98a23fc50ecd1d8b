# Mainline: two commands set everything up on a fresh machine: `make dev` and `make test` (`make check`: the fast loop).
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps dev demo check test screenshots lint typecheck proto proto-check build bench helm-check nats-permissions clean

help:
	@echo "make dev    - install what is missing, start NATS and every service; API on http://127.0.0.1:$${GATEWAY_PORT:-8080}/v1, web page on /"
	@echo "make demo   - with make dev running: ten pull requests of a real git repository through the queue"
	@echo "make check  - lint, type-check and the unit tests (*.unit.test.ts: no process, server or git), in parallel"
	@echo "make test   - install what is missing, then lint, proto freshness, type-check and every test, in parallel"
	@echo "make screenshots - refresh the README's screenshots of the web page (docs/web) from the browser test"
	@echo "make proto  - regenerate TypeScript from proto/"
	@echo "make bench  - run the benchmarks under tools/bench"
	@echo "make helm-check - helm lint --strict and helm template of deploy/helm/mainline for each ci/*.yaml"
	@echo "make nats-permissions - write tools/src/dev/service-permissions.ts into compose's nats.conf and the chart"

deps:
	@tools/scripts/ensure-deps.sh

dev: deps
	@node --conditions=mainline-source --import tsx tools/src/dev/main.ts

nats-permissions: deps
	@node --conditions=mainline-source --import tsx tools/src/dev/write-nats-permissions.ts

demo: deps
	@node --conditions=mainline-source --import tsx tools/src/demo/main.ts

check: deps
	@tools/scripts/test.sh --fast

test: deps
	@tools/scripts/test.sh

# The browser test writes its screenshots into a temporary folder; here, into the README's docs/web.
screenshots: deps
	@MAINLINE_SCREENSHOTS_DIR=docs/web npx mocha tools/test/web/web-page.browser.test.ts tools/test/web/insights-page.browser.test.ts

lint: deps
	npx eslint . && npx prettier --check .

typecheck: deps
	npx tsc -b

build: deps
	npx tsc -b

proto: deps
	npm run -w @mainline/proto generate

proto-check: deps
	npm run -w @mainline/proto check

bench: deps
	@for f in tools/bench/*-bench.ts; do echo "== $$f"; node --conditions=mainline-source --import tsx "$$f" || exit 1; done

# Not part of `make test`: tools/test/deploy/helm-chart.test.ts already lints and renders the chart there.
helm-check: deps
	@tools/scripts/helm-check.sh

clean:
	rm -rf node_modules/.cache .bench $$(find . -name dist -type d -not -path '*/node_modules/*' -prune) $$(find . -name '*.tsbuildinfo' -not -path '*/node_modules/*')
