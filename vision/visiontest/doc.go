// Package visiontest makes camera frames of playing cards for the simulator and for tests: the
// card faces come from the SVG card art Debian ships (gnome-cards-data's Aisleriot decks,
// kdegames-card-data-kf5's KDE decks), rendered once with rsvg-convert and cached as PNG; a
// Renderer places them in a shoe reader's window (320x240: the card's top as it slides out, either
// end first, a small rotation, motion blur along the slide) or on a table camera's felt (640x480:
// the whole card anywhere, any rotation, some perspective), under uneven light, with sensor noise
// and JPEG compression, as ../shared/vision-dev was made. It also makes the cut card (plain
// coloured plastic, perhaps printed with a word), the card back and the empty window.
//
// CameraShoe is a simulated reader camera, a vision/cv Source: Pass queues the frames of one card
// sliding through the window, and between cards it shows the empty window. Calibrate renders a
// calibration pass of a deck (one mild frame per card, as a technician captures it) and learns a
// profile from it, so that a simulated table reads rendered cards for real.
//
// Rendering needs rsvg-convert (librsvg2-bin) and the card art packages; Decks lists what is
// installed. Every random choice comes from the caller's *rand.Rand, so a seed gives the same
// frames on every run.
package visiontest
