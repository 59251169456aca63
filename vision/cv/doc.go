// Package cv is Sabot's card recognizer, built on OpenCV through gocv (v0.31, OpenCV 4.6, no
// contrib): calibration from a pass of the deck through the reader, recognition of reader (shoe)
// and table-camera frames, the frame sources (a V4L2 camera, a directory of images, a video
// file), and the evaluation of labelled frame sets. Everything outside vision/ sees results as
// vision.Result and never an OpenCV Mat; the camera shoe's loop reads a Reader.
//
// # How a frame is read
//
// Shoe frames: the card's left, right and top edges are found by scanning rows and columns of
// the blurred frame for the first strong colour step from the outside in, and fitting lines to
// the steps (robustly: the line most steps agree with). Their corner, angle and the card's width
// place a band, the top of the card face resampled to 128 pixels across, whatever the card's
// size, position or rotation in the window. An outline too faint for single rows and columns
// (dark plastic on dark felt) is found by its steps averaged along straight lines: two parallel
// sides about the card's width apart and a top square to them, with felt above. Table frames: the card is what stands out from the
// felt's median colour; its outline is fitted with straight sides (a side the frame hides is put
// back from the card's shape) and mapped to the same band by a perspective warp, both ends up.
//
// The band is compared with the 52 calibration bands by normalized cross-correlation, which
// ignores exposure and white balance (each channel is divided by the card's own background
// level first). Calibration learns where the index is: the corner windows in which the 52 cards
// differ by rank but not by suit (the rank window) and by suit but not by rank (the suit window),
// from an analysis of variance per pixel and the window whose closest two ranks are farthest
// apart. The index reads the same from either end of a card, the body does not, so the rank is
// read from the rank window and the suit from the suit window (against the four cards of that
// rank); the whole band, from the same end and, with the card's length known, from the other
// end, decides only when it is sure, and vetoes the index when it is sure of another card.
//
// A card is answered only when the best candidate leads the runner-up by a clear share of the
// distance between the two templates (see relLead); anything else is a rejection with a reason.
// The cut card is a card whose top corners are blank and that does not look like the back; the
// back is its calibration template; an empty window is felt with no straight edge and no smooth
// patch. A frame that is none of these is rejected, never guessed (RULES.md §1 "Misread").
//
// # Resources
//
// A Recognizer keeps its working Mats between frames and is not safe for concurrent use: make
// one per camera. Every Mat is closed on the line after it is made; run the tests with
// -tags matprofile and TestMain fails on any Mat left open.
package cv
