//go:build !invariants

package replay

// invariants is false in normal builds; `make test` builds with -tags invariants.
const invariants = false
