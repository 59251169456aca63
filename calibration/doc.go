// Package calibration holds the profiles that fit Sabot to the equipment in use: versioned,
// validated JSON files that the technician's tools write and the daemon loads.
//
// VisionProfile fits the card recognizer (vision/cv) to one deck design seen through one reader
// camera: the card templates it learned from a sorted deck passed through the reader
// (`sabot calibrate vision`), the camera it was made with, and what it measured of the deck.
// A profile is checked on load: format and version, the camera, all 52 cards present and well
// formed, and a SHA-256 over the content so that a damaged file is a clear error, not a reader
// that quietly misreads.
//
// This package is pure Go. The camera report (`sabot calibrate camera`: focus, exposure, region of
// interest) needs OpenCV and lives in vision/camcheck.
package calibration
