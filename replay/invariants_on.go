//go:build invariants

package replay

// invariants enables the engine's self-checks after every instant (-tags invariants).
const invariants = true
