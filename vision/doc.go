// Package vision holds what the rest of Sabot sees of card recognition: the Result of reading one
// frame (a card, the cut card, a card back, an empty reader, or a rejection with its reason), the
// View a frame comes from, the Combiner that turns the frames seen between two card-exit sensor
// edges into one physical card, and the labels.csv format of labelled frame sets.
//
// Everything here is pure Go. The OpenCV recognizer, the frame sources (V4L2 camera, a directory
// of images, a video file) and calibration from frames live in vision/cv; the frame renderer used
// by the simulator and by tests lives in vision/visiontest.
//
// The first rule (issue 3, RULES.md §1 "Misread"): never guess. A frame is answered with a card
// only when the recognizer is sure; anything doubtful is a rejection, and the shoe holds the round
// until the dealer enters the card by hand.
package vision
