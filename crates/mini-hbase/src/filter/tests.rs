//! Unit tests for the filters.
