// The curated Packages (packages/<name>) through the real server, one Package per module in
// curated/: each registers its Blueprint on one server shared by all of them (a home holding
// every curated Package as publish-local publishes them) and plays its service with its own
// stand-in behind one loopback HTTPS server answering every curated host (support/curated.ts).
// One file, so the server and the test process start once instead of once per Package.
import { after } from 'node:test';
import { stopCurated } from '../support/curated';
import './curated/brave-search';
import './curated/exa';
import './curated/firecrawl';
import './curated/github';
import './curated/gmail';
import './curated/google-calendar';
import './curated/google-drive';
import './curated/jina';
import './curated/linear';
import './curated/notion';
import './curated/sentry';
import './curated/slack-bot';
import './curated/slack-user';
import './curated/typesafe';

after(stopCurated);
