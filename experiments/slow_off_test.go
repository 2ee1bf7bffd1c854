//go:build !race && !invariants

package experiments

// slowBuild reports a build with the race detector or the engine's invariant checks, under
// which replays of the shared Google window take minutes; those tests are skipped then.
const slowBuild = false
