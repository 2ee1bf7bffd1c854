//go:build !race

package google2011

// raceEnabled reports whether the race detector is on; tests over the whole shared trace are
// skipped then (they take minutes under the detector; the fixtures cover the same code).
const raceEnabled = false
