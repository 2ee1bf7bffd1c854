package solver

//go:generate go run ./internal/gennames -o names_gen.go
