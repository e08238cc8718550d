.PHONY: run test openapi bench bench-smoke fmt

# Install what is missing, build, and serve on http://127.0.0.1:8080 with a demo club.
run:
	scripts/run.sh

# fmt check, clippy, and the whole test suite against a throwaway PostgreSQL.
test:
	scripts/test.sh

# Regenerate the committed OpenAPI document from the code.
openapi:
	cargo run --quiet -- openapi > openapi/openapi.json

# Rules-engine benchmarks (criterion).
bench:
	cargo bench --bench rules

# The platform benchmark at a small scale, debug build: does it still run (make test runs it).
bench-smoke:
	scripts/bench-smoke.sh

fmt:
	cargo fmt
