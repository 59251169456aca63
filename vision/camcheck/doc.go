// Package camcheck is the technician's check of a reader camera (`sabot calibrate camera`): how
// sharp its focus is, how the exposure sits, and where in the window the card lands, measured on
// one frame and written as numbers and as a PNG report, so that a dirty window, a camera out of
// focus or a lamp going dark shows at a glance. It takes a file (CheckImage) or a camera
// (CheckDevice), so that its callers never handle an OpenCV Mat.
//
// The measures:
//
//   - Focus: the variance of the Laplacian of the grey image over the card's index corner (over
//     the whole frame when no card is in view). A sharp index corner gives thousands; a blurred
//     or fogged one about a hundred.
//   - Contrast: the spread between the 1st and 99th percentile of brightness. A dirty window
//     lifts the blacks and dims the whites: the spread shrinks.
//   - Exposure: the mean brightness and the share of pixels clipped at black (≤ 5) or white
//     (≥ 250), with the full histogram drawn.
//   - Region of interest: the card's outline and the index corner as the recognizer finds them
//     (cv.FindCard); with a profile of the reader camera, the card's width against the
//     profile's.
//
// Each measure gets a verdict (good, check, bad) against fixed limits written below; the limits
// are for the 320x240 reader window of the dev shoe and are what the report's colours mean.
package camcheck
