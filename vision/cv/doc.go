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
// the gradient's peaks across them, each side the outermost step with paper inside it (a printed
// border's inner edge is not the card's); the card is resampled by its calibrated length
// (measured from a two-ended pass, or the photographs' median outline), and both ends are read,
// as far as the frame shows them: a card cut by the frame's edge is read when one end is in
// (table.go).
//
// Describe it. The card is resampled by its corners to card coordinates (fineScale pixels a card
// width, from the end on top), blurred a little (what cameras leave at an edge differs), each
// channel divided by the card's own white and its local mean taken away, so that exposure, white
// balance and uneven light fall out (describe.go).
//
// The templates. Each class's template is the whole card as calibration learned it, in the same
// coordinates: its two ends laid together from two passes, or one pass's end and, for a
// two-ended design, the rows near the far end by symmetry (its corners only are compared there:
// a one-way picture is not symmetric), or a photograph of the whole card. Rows no frame of
// calibration showed are not known, and no class is compared there (template.go).
//
// Score every class. The frame is compared with each class's template, at each end, part by part
// (nothing on the card's outline, whose step is the card against the felt or a table):
// the two top corners (where designs print the index) fine, the face coarse; each part at the
// shift (a few pixels either way) it fits best, with the template's blur variant that fits the
// frame (motion along the card, focus) or, where the template was made from a smaller card than
// the frame's, the frame blurred to the template's sharpness, a gain (each colour channel's within 1.5 times of the
// part's), by squared differences weighted by the noise model calibration measured: how much
// frames of a card differ from its template, more on a steep edge than on paper (noise.go). A class's distance D is the mean weighted square,
// about 1 for a frame of it as harsh as calibration's perturbations (model.go).
//
// Decide by one rule. The best class is the answer when D(best) ≤ T, its worst-fitting part's own
// distance is at most Tp (corners that fit must not outvote a face that does not), and its lead
// over every other class b, (D(b) − D(best)) / √(δ(best, b) · D(best)) — the difference of the two distances in
// units of its spread, δ how far b's template is from best's — is at least M. Otherwise the frame
// is rejected, naming the best class and the rival it leads least. T, Tp and M are not set by hand:
// calibration perturbs every calibration frame many times, harder than a camera in the field
// (blur, noise, a coarser sensor, sharpening, shift, scale, rotation, light, JPEG, the card slid
// about the reader's window), reads each against the profile, and takes T as the distance within
// which 95% of them fit their own class, Tp the same of their worst parts, and M as the least lead at which the estimated share of
// frames another class leads by M (its tail fitted with an exponential, never under what was
// counted) is under 1 in 10,000 (rule.go). The profile stores them with the estimate; Explain
// gives a frame's trace (the outline, the five best classes with how each was compared, the rule
// and what decided).
//
// A passage of frames is decided by the same rule on the frames' mean distances
// (vision.Combiner); one frame that on its own reads another class rejects it.
//
// # Resources
//
// A Recognizer keeps its working Mats between frames and is not safe for concurrent use: make
// one per camera. Run the tests with -tags matprofile: TestMain fails on any Mat left open.
package cv
