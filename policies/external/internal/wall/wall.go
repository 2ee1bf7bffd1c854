// Package wall is the external policy's only access to the wall clock: it bounds how long a
// scheduler may take (timeouts, connection retries) and measures call latencies, which are
// recorded apart from results and never decided on. internal/lint exempts this package alone.
package wall

import "time"

// Now returns the current wall time.
func Now() time.Time { return time.Now() }

// Since returns the wall time elapsed since t.
func Since(t time.Time) time.Duration { return time.Since(t) }

// Until returns the wall time left until t.
func Until(t time.Time) time.Duration { return time.Until(t) }

// After returns the wall time d from now.
func After(d time.Duration) time.Time { return time.Now().Add(d) }
