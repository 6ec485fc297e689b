// The curated Packages (packages/<name>) through the real server, one Package per module in
// curated/: each registers its Blueprint on one server shared by the Packages of this file (a
// home holding every curated Package as publish-local publishes them) and plays its service
// with its own stand-in behind one loopback HTTPS server answering every curated host
// (support/curated.ts). The Packages are split alphabetically over two files, brave-search to
// google-drive here and jina to typesafe in curated-j-t.test.ts: as one file (164 tests, one
// server) it was the suite's longest wall by far (101 s of a 5.8-min run), and the run cannot
// end before its longest file; the second server and test process cost about 1 CPU-s.
import { after } from 'node:test';
import { stopCurated } from '../support/curated';
import './curated/brave-search';
import './curated/exa';
import './curated/firecrawl';
import './curated/github';
import './curated/gmail';
import './curated/google-calendar';
import './curated/google-drive';

after(stopCurated);
