//go:build !race

package canonical

// raceEnabled reports whether the race detector is on; the largest round trip is skipped then.
const raceEnabled = false
