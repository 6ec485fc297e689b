// The curated Packages jina to typesafe through the real server, one server for the file
// (support/curated.ts); brave-search to google-drive are in curated-a-g.test.ts, which says why
// they are two files.
import { after } from 'node:test';
import { stopCurated } from '../support/curated';
import './curated/jina';
import './curated/linear';
import './curated/notion';
import './curated/sentry';
import './curated/slack-bot';
import './curated/slack-user';
import './curated/typesafe';

after(stopCurated);
