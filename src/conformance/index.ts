export { arbAbsolutePaths, arbBaselineFor, arbDispatch, arbFileBaseline, arbHandoff } from './arbitraries.js';
