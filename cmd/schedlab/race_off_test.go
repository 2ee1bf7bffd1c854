//go:build !race

package main

// raceEnabled reports whether the race detector is on: the full-size fault tests, which replay
// the whole default workload many times, run only without it (see killsafe_test.go).
const raceEnabled = false
