package main

import (
	"fmt"
	"strings"

	"github.com/spf13/viper"

	"github.com/schedlab/schedlab/experiments"
)

// applyRecord sets metrics.tasks and metrics.trace from run's --record list.
func applyRecord(v *viper.Viper, record []string) error {
	for _, r := range record {
		switch r {
		case "tasks":
			v.Set("metrics.tasks", true)
		case "trace":
			v.Set("metrics.trace", true)
		default:
			return fmt.Errorf("%w: --record %s: unknown recording (valid: %s)", experiments.ErrConfig, r, strings.Join(experiments.Recording, ", "))
		}
	}
	return nil
}
