// The dashboard's entry: the stylesheet, and the app mounted into #app.
import { render } from 'preact';
import './style.css';
import { App } from './app';

render(<App />, document.getElementById('app')!);
