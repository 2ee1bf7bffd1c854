package replay

// CheckInvariants runs the engine's self-checks in any build (tests outside the package).
func CheckInvariants(e *Engine) error { return e.checkInvariants() }
