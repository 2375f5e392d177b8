// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IToken {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function transfer(address to, uint256 value) external returns (bool);
    function balanceOf(address holder) external view returns (uint256);
}

/// A small constant-product pool (0.3% fee) over two tokens: the upstream's AMM in the fork tests.
/// The reserves share slot 0; liquidity shares are a mapping at slot 1, their total at slot 2.
contract Pool {
    uint112 public reserve0;
    uint112 public reserve1;
    mapping(address => uint256) public shares;
    uint256 public totalShares;
    IToken public immutable token0;
    IToken public immutable token1;

    event Mint(address indexed to, uint256 amount0, uint256 amount1, uint256 shares);
    event Swap(address indexed sender, address indexed to, bool zeroForOne, uint256 amountIn, uint256 amountOut);
    event Sync(uint112 reserve0, uint112 reserve1);

    constructor(IToken a, IToken b) {
        token0 = a;
        token1 = b;
    }

    function addLiquidity(uint256 amount0, uint256 amount1) external returns (uint256 minted) {
        token0.transferFrom(msg.sender, address(this), amount0);
        token1.transferFrom(msg.sender, address(this), amount1);
        minted = totalShares == 0 ? sqrt(amount0 * amount1) : min((amount0 * totalShares) / reserve0, (amount1 * totalShares) / reserve1);
        require(minted > 0, "Pool: nothing minted");
        shares[msg.sender] += minted;
        totalShares += minted;
        emit Mint(msg.sender, amount0, amount1, minted);
        _sync();
    }

    function swap(uint256 amountIn, bool zeroForOne, address to) external returns (uint256 amountOut) {
        (IToken tokenIn, IToken tokenOut, uint256 reserveIn, uint256 reserveOut) =
            zeroForOne ? (token0, token1, uint256(reserve0), uint256(reserve1)) : (token1, token0, uint256(reserve1), uint256(reserve0));
        tokenIn.transferFrom(msg.sender, address(this), amountIn);
        uint256 withFee = amountIn * 997;
        amountOut = (withFee * reserveOut) / (reserveIn * 1000 + withFee);
        require(amountOut > 0, "Pool: insufficient output");
        tokenOut.transfer(to, amountOut);
        emit Swap(msg.sender, to, zeroForOne, amountIn, amountOut);
        _sync();
    }

    function _sync() internal {
        reserve0 = uint112(token0.balanceOf(address(this)));
        reserve1 = uint112(token1.balanceOf(address(this)));
        emit Sync(reserve0, reserve1);
    }

    function min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }

    function sqrt(uint256 y) internal pure returns (uint256 z) {
        if (y > 3) {
            z = y;
            uint256 x = y / 2 + 1;
            while (x < z) {
                z = x;
                x = (y / x + x) / 2;
            }
        } else if (y != 0) {
            z = 1;
        }
    }
}
