// Package cora implements CORA ("Need for Speed: CORA Scheduler for Optimizing Completion-Times
// in the Cloud", Huang et al.): a scheduler that, at every scheduling event, allocates the
// cluster to the active jobs so as to maximize lexicographically the sorted vector of their
// completion-time utilities U_i(T_i).
package cora
