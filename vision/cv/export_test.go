package cv

// ForceOneEnded makes r read as it reads a deck whose index does not tell every rank (see
// model.indexGood), for tests in package cv_test.
func ForceOneEnded(r *Recognizer) {
	r.m.indexGood = false
	r.m.oneEndSims()
}
