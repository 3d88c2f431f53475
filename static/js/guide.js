// A guide's scripts, one entry module (one request when bundled): the Listen button and the figures that load
// as the reader scrolls to them.

import "./listen.js";
import "./figure_inline.js";
