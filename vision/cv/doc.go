// Package cv is Sabot's card recognizer, built on OpenCV through gocv (v0.31, OpenCV 4.6, no
// contrib): calibration from a pass of the deck through the reader (or photographs of its
// cards), recognition of reader (shoe) frames and of cards lying anywhere in a table camera's
// or a technician's photo, the frame sources (a V4L2 camera, a directory of images, a video
// file), and the evaluation of labelled frame sets. Everything outside vision/ sees results as
// vision.Result and never an OpenCV Mat; the camera shoe's loop reads a Reader.
//
// # How a frame is read (issue 17: one model, one rule)
//
// Find the card. In the shoe's window the card's top edge and sides are the first lasting colour
// step scanned in from the frame's top and sides, the edge threshold a share of the frame's own
// contrast, each edge a line fitted robustly (RANSAC) to the steps; the top corners place the
// card (shoe.go). A frame whose contrast is under a third of the faintest card edge calibration
// saw is the empty window (NONE). Anywhere else (table, photo) the card is an outline of a card's
// shape in the colour gradient (whatever the background, light or dark; its faint stretches held
// by its strong ones, as in Canny's hysteresis), its corners the outline's points nearest those
// of the rectangle round it (a card in perspective is not a rectangle), its four sides refined on
// the gradient's peaks across them; the card is resampled by its calibrated length (measured from
// a two-ended pass, or the photographs' median outline), and both ends are read (table.go).
//
// Describe it. Each end of the card is resampled by its corners to a canonical card: the index
// corner at 128 pixels per card width, the face at 64, each channel divided by the card's own
// white and high-passed, so that exposure, white balance and uneven light fall out (describe.go).
//
// Score every class. The index block (rank and suit) and the face are compared with each class's
// templates by normalized correlation in small cells; a cell that is blank paper in the template
// is compared by the frame's ink there instead, measured against the frame's own ink (a blurred
// or dim card is as far from the plain cut card as a sharp one). The index is split, by an analysis of variance over the 52
// calibrated cards, into the parts that tell ranks apart and the parts that tell suits apart; its
// distance is the worse of the two, so that a frame must fit both the rank and the suit. The
// index is searched a few pixels either way and at four blur levels (a moving card). A class's
// distance D is the worse of its index's and its face's (model.go).
//
// Decide by one rule. Both numbers are measured against δ(a, b), how far class b's template is
// from class a's at the frame's blur level. The best class is the answer when its relative
// distance D(best) / δ(best, nearest) ≤ T, its distance as a share of the way to the nearest
// other class's template, and it leads every other class by at least M, the lead over a rival
// measured along the line between their two templates: (D(rival) − D(best)) / δ(best, rival).
// A card with a near twin must so fit its template closely, a card unlike every other may fit
// it loosely. Otherwise the frame is rejected, naming the best class
// and its runner-up. T and M are not set by hand: calibration perturbs every calibration frame
// many times (blur, noise, shift, scale, rotation, light, JPEG), reads each against the profile
// with its class and against the profile without it, and keeps the pair that reads the most while
// the estimated false-accept rate stays under 1 in 10,000 frames (rule.go). The profile stores
// them with the estimate; Explain gives a frame's trace (the outline, the five best classes, the
// rule and what decided).
//
// A passage of frames is decided by the same rule on the frames' mean distances
// (vision.Combiner); one frame that on its own reads another class rejects it.
//
// Templates are learned, not drawn: each is the mean of its calibration frame's perturbed
// descriptions. A deck passed once is known at the end it was passed at; its other end is built
// from the card's symmetry (the index is the same, the face turned), and a second pass with the
// deck turned end for end (a one-ended design) learns it (learn.go).
//
// # Resources
//
// A Recognizer keeps its working Mats between frames and is not safe for concurrent use: make
// one per camera. Run the tests with -tags matprofile: TestMain fails on any Mat left open.
package cv
